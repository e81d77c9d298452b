{{ stamp }}
// {{ name }}: synchronous FIFO of Depth entries in a block RAM, with a valid/ready
// interface, for deep queues, where hs_fifo's flop array (LUT RAM on an FPGA) costs
// area and a Depth:1 read multiplexer.
//
// Items wait in a RAM read in two clocks (its read register, then its output register,
// so the RAM's clock-to-out starts no path), read ahead into a head buffer of Head flop
// entries that drives the output. A read is issued only against a credit (a head entry
// neither full nor promised to a read already), so the head never overflows. Head = 4
// covers the four clocks from a pop to its refill being visible (credit, RAM, output
// register, head write): a stream through the RAM runs at one item a clock.
// An item that finds the RAM empty and no read in flight goes straight to the head, so
// a FIFO that keeps up has hs_fifo's latency, 1 clock; an item that waited in the RAM
// reaches the head 3 clocks after it could leave the RAM.
// Combinational paths: none. in_ready_o and out_valid_o are flops; out_data_o is a
// Head:1 mux of flops addressed by a flop.
// Cost: one Depth x Width RAM with a write port and a read port (its two read registers
// are the block RAM's own on ECP5), Head x Width data flops, counts (reset).
module {{ name }} #(
  parameter integer Width = {{ width }},
  parameter integer Depth = {{ depth }},
  // Head entries: below 4 a stream through the RAM runs below one item a clock.
  parameter integer Head = {{ head }}
) (
{% include "rtl/hs_ports.v" %}
);

  // Guarded so that a depth of 1 never yields a zero-width pointer.
  localparam integer PtrW = (Depth > 1) ? $clog2(Depth) : 1;
  localparam integer LastIdx = Depth - 1;
  localparam [PtrW-1:0] LastPtr = LastIdx[PtrW-1:0];
  localparam integer CntW = $clog2(Depth + 1);
  localparam [CntW-1:0] LastCount = LastIdx[CntW-1:0];
  localparam [CntW-1:0] OneCount = 1;
  localparam integer HPtrW = (Head > 1) ? $clog2(Head) : 1;
  localparam integer HLastIdx = Head - 1;
  localparam [HPtrW-1:0] HLastPtr = HLastIdx[HPtrW-1:0];
  localparam integer CredW = $clog2(Head + 1);
  localparam [CredW-1:0] Credits = Head[CredW-1:0];

  // Items held: in the RAM, in its two read registers, in the head.
  reg [CntW-1:0] count_q;
  reg full_q;
  // The RAM and the items in it not yet read. A read and a write never meet at one entry
  // (the write's entry is free whenever the FIFO is not full, and a read is of an item
  // already written): `no_rw_check`, so synthesis adds no read-during-write bypass
  // between the RAM and its output register.
  (* no_rw_check *)
  reg [Width-1:0] mem_q [0:Depth-1];
  reg [PtrW-1:0] wr_ptr_q;
  reg [PtrW-1:0] rd_ptr_q;
  reg [CntW-1:0] ram_cnt_q;
  reg ram_any_q;  // ram_cnt_q is not zero
  reg [Width-1:0] rdata_q;  // the RAM's read register
  reg [Width-1:0] out_q;  // its output register
  reg rd1_q;  // rdata_q holds an item read last clock
  reg rd2_q;  // out_q holds one, written to the head this clock
  // The head: a ring of Head entries, its fill level a thermometer.
  reg [Width-1:0] head_q [0:Head-1];
  reg [HPtrW-1:0] hw_ptr_q;
  reg [HPtrW-1:0] hr_ptr_q;
  reg [Head-1:0] hlevel_q;
  wire [Head-1:0] hlevel_d;
  reg [CredW-1:0] credit_q;

  wire push = in_valid_i & ~full_q;
  wire pop = out_ready_i & hlevel_q[0];
  wire has_credit = credit_q != {CredW{1'b0}};
  // Straight to the head: nothing older is in the RAM or on its way out of it.
  wire direct_ok = ~ram_any_q & ~rd1_q & ~rd2_q & has_credit;
  wire direct = push & direct_ok;
  wire to_ram = push & ~direct_ok;
  wire rd = ram_any_q & has_credit;
  // The head takes the RAM's item or the input's, never both (direct_ok excludes rd2_q).
  wire head_in = rd2_q | direct;
  wire [Width-1:0] head_data = rd2_q ? out_q : in_data_i;
  wire grow = push & ~pop;
  wire shrink = pop & ~push;
  wire hgrow = head_in & ~pop;
  wire hshrink = pop & ~head_in;

  assign in_ready_o = ~full_q;
  assign out_valid_o = hlevel_q[0];
  assign out_data_o = head_q[hr_ptr_q];

  // Bit k of the head's level moves up from bit k - 1 on a write, down from bit k + 1 on
  // a pop.
  genvar gk;
  generate
    for (gk = 0; gk < Head; gk = gk + 1) begin : g_hlevel
      wire up;
      wire down;
      if (gk == 0) begin : g_first
        assign up = 1'b1;
      end else begin : g_up
        assign up = hlevel_q[gk-1];
      end
      if (gk == Head - 1) begin : g_last
        assign down = 1'b0;
      end else begin : g_down
        assign down = hlevel_q[gk+1];
      end
      assign hlevel_d[gk] = hgrow ? up : (hshrink ? down : hlevel_q[gk]);
    end
  endgenerate

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      count_q   <= {CntW{1'b0}};
      full_q    <= 1'b0;
      wr_ptr_q  <= {PtrW{1'b0}};
      rd_ptr_q  <= {PtrW{1'b0}};
      ram_cnt_q <= {CntW{1'b0}};
      ram_any_q <= 1'b0;
      rd1_q     <= 1'b0;
      rd2_q     <= 1'b0;
      hw_ptr_q  <= {HPtrW{1'b0}};
      hr_ptr_q  <= {HPtrW{1'b0}};
      hlevel_q  <= {Head{1'b0}};
      credit_q  <= Credits;
    end else begin
      // Both neighbours of each count come from flops; the handshakes only select one.
      if (grow) begin
        count_q <= count_q + 1'b1;
        full_q  <= count_q == LastCount;
      end else if (shrink) begin
        count_q <= count_q - 1'b1;
        full_q  <= 1'b0;
      end
      if (to_ram) begin
        wr_ptr_q <= (wr_ptr_q == LastPtr) ? {PtrW{1'b0}} : wr_ptr_q + 1'b1;
      end
      if (rd) begin
        rd_ptr_q <= (rd_ptr_q == LastPtr) ? {PtrW{1'b0}} : rd_ptr_q + 1'b1;
      end
      if (to_ram & ~rd) begin
        ram_cnt_q <= ram_cnt_q + 1'b1;
        ram_any_q <= 1'b1;
      end else if (rd & ~to_ram) begin
        ram_cnt_q <= ram_cnt_q - 1'b1;
        ram_any_q <= ram_cnt_q != OneCount;
      end
      rd1_q <= rd;
      rd2_q <= rd1_q;
      if (head_in) begin
        hw_ptr_q <= (hw_ptr_q == HLastPtr) ? {HPtrW{1'b0}} : hw_ptr_q + 1'b1;
      end
      if (pop) begin
        hr_ptr_q <= (hr_ptr_q == HLastPtr) ? {HPtrW{1'b0}} : hr_ptr_q + 1'b1;
      end
      hlevel_q <= hlevel_d;
      // A read or a direct write takes a credit (never both: one needs the RAM empty,
      // the other not); a pop gives one back.
      if ((rd | direct) & ~pop) begin
        credit_q <= credit_q - 1'b1;
      end else if (pop & ~(rd | direct)) begin
        credit_q <= credit_q + 1'b1;
      end
    end
  end

  // Datapath: no reset. The RAM entry at the write pointer is free whenever the FIFO is
  // not full, and the head's whenever the head is not full, so each takes its input
  // then, whether or not an item comes (enables from flops).
  always @(posedge clk_i) begin
    if (~full_q & ~direct_ok) begin
      mem_q[wr_ptr_q] <= in_data_i;
    end
    if (rd) begin
      rdata_q <= mem_q[rd_ptr_q];
    end
    out_q <= rdata_q;
    if (~hlevel_q[Head-1]) begin
      head_q[hw_ptr_q] <= head_data;
    end
  end
`ifdef FORMAL

  // Items held, counted by the proof alone; the counts below must agree with it.
  reg [7:0] f_count_q;
  reg [7:0] f_head_q;
  always @(posedge clk_i) begin
    if ({{ rst.active }}) begin
      f_count_q <= 8'd0;
      f_head_q  <= 8'd0;
    end else begin
      f_count_q <= f_count_q + {7'd0, push} - {7'd0, pop};
      f_head_q  <= f_head_q + {7'd0, head_in} - {7'd0, pop};
    end
  end
  wire [7:0] f_occupancy = f_count_q;
{% include "rtl/hs_formal.v" %}

  integer f_i;
  reg [PtrW-1:0] f_slot;
  reg [HPtrW-1:0] f_hslot;
  reg [Width-1:0] f_expect;
  always @(*) begin
    // The loop counter too gets a value outside the branch, or it is a latch.
    f_i = 0;
    f_slot = rd_ptr_q;
    f_hslot = hr_ptr_q;
    f_expect = f_out_seq;
    if (f_past_valid && !({{ rst.active }})) begin
      assert(f_count_q <= Depth);
      assert(count_q == f_count_q);
      assert(full_q == (count_q == Depth));
      assert(ram_any_q == (ram_cnt_q != 0));
      assert(f_count_q == ram_cnt_q + rd1_q + rd2_q + f_head_q);
      assert(credit_q + rd1_q + rd2_q + f_head_q == Head);
      assert(rd_ptr_q <= LastPtr);
      assert(wr_ptr_q <= LastPtr);
      assert(hr_ptr_q <= HLastPtr);
      assert(hw_ptr_q <= HLastPtr);
      assert(wr_ptr_q == ((rd_ptr_q + ram_cnt_q >= Depth) ? rd_ptr_q + ram_cnt_q - Depth : rd_ptr_q + ram_cnt_q));
      assert(hw_ptr_q == ((hr_ptr_q + f_head_q >= Head) ? hr_ptr_q + f_head_q - Head : hr_ptr_q + f_head_q));
      for (f_i = 0; f_i < Head; f_i = f_i + 1) begin
        assert(hlevel_q[f_i] == (f_head_q > f_i));
      end
      // In order: the head's items, then out_q's, then rdata_q's, then the RAM's.
      for (f_i = 0; f_i < Head; f_i = f_i + 1) begin
        if (f_i < f_head_q) begin
          assert(head_q[f_hslot] == f_expect);
          f_expect = f_expect + 1'b1;
        end
        f_hslot = (f_hslot == HLastPtr) ? {HPtrW{1'b0}} : f_hslot + 1'b1;
      end
      if (rd2_q) begin
        assert(out_q == f_expect);
        f_expect = f_expect + 1'b1;
      end
      if (rd1_q) begin
        assert(rdata_q == f_expect);
        f_expect = f_expect + 1'b1;
      end
      for (f_i = 0; f_i < Depth; f_i = f_i + 1) begin
        if (f_i < ram_cnt_q) begin
          assert(mem_q[f_slot] == f_expect);
        end
        f_slot = (f_slot == LastPtr) ? {PtrW{1'b0}} : f_slot + 1'b1;
        f_expect = f_expect + 1'b1;
      end
    end
  end
`endif
endmodule
