{{ stamp }}
// {{ name }}: synchronous FIFO of Depth entries with a valid/ready interface.
//
// Storage is a flop array (small handshake FIFOs; a RAM-backed FIFO would add a read
// clock to the output). An item written this clock is visible at the output next clock.
// Latency 1 clock; throughput 1 item per clock for Depth >= 2. Depth = 1 is half rate:
// in_ready_o is registered, so the single entry cannot be refilled in the clock it
// drains (use `bubble` or `skid` for a one-item full-rate slice).
// Combinational paths: none. in_ready_o and out_valid_o are flops (full, empty);
// out_data_o is a Depth:1 mux of flops addressed by a flop.
// Cost: Depth x Width data flops (no reset), 2 pointers and the fill level (reset):
// Depth flops up to ThermoDepth, else a count and 2 flags.
module {{ name }} #(
  parameter integer Width = {{ width }},
  parameter integer Depth = {{ depth }},
  // Depths up to this keep their fill level as a thermometer (Depth flops, no carry).
  parameter integer ThermoDepth = {{ thermo_depth }},
  // 1: the user never puts more than Depth - 1 items in (credits one short of Depth), so
  // the entry at the write pointer is always free and is written every clock: the
  // storage's write enable is a constant, not the full flag fanned out to every bit.
  parameter integer WriteAlways = 0
) (
{% include "rtl/hs_ports.v" %}
);

  // Guarded so that Depth = 1 never yields a zero-width pointer.
  localparam integer PtrW = (Depth > 1) ? $clog2(Depth) : 1;
  localparam integer LastIdx = Depth - 1;
  localparam [PtrW-1:0] LastPtr = LastIdx[PtrW-1:0];

  reg [Width-1:0] mem_q [0:Depth-1];
  reg [PtrW-1:0] wr_ptr_q;
  reg [PtrW-1:0] wr_ptr_d;
  reg [PtrW-1:0] rd_ptr_q;
  reg [PtrW-1:0] rd_ptr_d;
  wire full;
  wire empty;
  wire push;
  wire pop;
  wire grow;
  wire shrink;

  assign in_ready_o  = ~full;
  assign out_valid_o = ~empty;
  assign out_data_o  = mem_q[rd_ptr_q];
  assign push        = in_valid_i & ~full;
  assign pop         = out_ready_i & ~empty;
  assign grow        = push & ~pop;
  assign shrink      = pop & ~push;

  always @(*) begin
    wr_ptr_d = wr_ptr_q;
    rd_ptr_d = rd_ptr_q;
    if (push) begin
      wr_ptr_d = (wr_ptr_q == LastPtr) ? {PtrW{1'b0}} : wr_ptr_q + 1'b1;
    end
    if (pop) begin
      rd_ptr_d = (rd_ptr_q == LastPtr) ? {PtrW{1'b0}} : rd_ptr_q + 1'b1;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      wr_ptr_q <= {PtrW{1'b0}};
      rd_ptr_q <= {PtrW{1'b0}};
    end else begin
      wr_ptr_q <= wr_ptr_d;
      rd_ptr_q <= rd_ptr_d;
    end
  end
`ifdef FORMAL

  // Items held, counted by the proof alone; the fill level below must agree with it.
  localparam integer FCntW = $clog2(Depth + 1);
  reg [FCntW-1:0] f_count_q;
  always @(posedge clk_i) begin
    if ({{ rst.active }}) begin
      f_count_q <= {FCntW{1'b0}};
    end else if (grow) begin
      f_count_q <= f_count_q + 1'b1;
    end else if (shrink) begin
      f_count_q <= f_count_q - 1'b1;
    end
  end
  wire [7:0] f_occupancy = f_count_q;
{% include "rtl/hs_formal.v" %}
`endif

  // The fill level. Up to ThermoDepth entries it is a thermometer (level_q[k] set while
  // more than k items are held), so full, empty and the next level are a LUT from flops
  // with no carry on the ready path. Deeper FIFOs count in binary, with full and empty as
  // flops set from compares on the count of this clock.
  genvar gk;
  generate
    if (Depth <= ThermoDepth) begin : g_level
      reg [Depth-1:0] level_q;
      wire [Depth-1:0] level_d;

      // Bit k moves up from bit k - 1 on a push, down from bit k + 1 on a pop.
      for (gk = 0; gk < Depth; gk = gk + 1) begin : g_bit
        wire up;
        wire down;
        if (gk == 0) begin : g_first
          assign up = 1'b1;
        end else begin : g_up
          assign up = level_q[gk-1];
        end
        if (gk == Depth - 1) begin : g_last
          assign down = 1'b0;
        end else begin : g_down
          assign down = level_q[gk+1];
        end
        assign level_d[gk] = grow ? up : (shrink ? down : level_q[gk]);
      end

      always @(posedge clk_i{{ rst.edge }}) begin
        if ({{ rst.active }}) begin
          level_q <= {Depth{1'b0}};
        end else begin
          level_q <= level_d;
        end
      end

      assign full  = level_q[Depth-1];
      assign empty = ~level_q[0];
`ifdef FORMAL
      integer f_k;
      always @(*) begin
        if (f_past_valid && !({{ rst.active }})) begin
          for (f_k = 0; f_k < Depth; f_k = f_k + 1) begin
            assert(level_q[f_k] == (f_count_q > f_k));
          end
        end
      end
`endif
    end else begin : g_count
      localparam integer CntW = $clog2(Depth + 1);
      localparam [CntW-1:0] LastCount = LastIdx[CntW-1:0];
      localparam [CntW-1:0] OneCount = 1;
      reg [CntW-1:0] count_q;
      reg [CntW-1:0] count_d;
      reg full_q;
      reg full_d;
      reg empty_q;
      reg empty_d;
      wire [CntW-1:0] count_up = count_q + 1'b1;
      wire [CntW-1:0] count_down = count_q - 1'b1;

      always @(*) begin
        // Both neighbours of the count come from flops; the handshake only selects one.
        count_d = grow ? count_up : (shrink ? count_down : count_q);
        full_d  = grow ? (count_q == LastCount) : (full_q & ~shrink);
        empty_d = shrink ? (count_q == OneCount) : (empty_q & ~grow);
      end

      always @(posedge clk_i{{ rst.edge }}) begin
        if ({{ rst.active }}) begin
          count_q <= {CntW{1'b0}};
          full_q  <= 1'b0;
          empty_q <= 1'b1;
        end else begin
          count_q <= count_d;
          full_q  <= full_d;
          empty_q <= empty_d;
        end
      end

      assign full  = full_q;
      assign empty = empty_q;
`ifdef FORMAL
      always @(*) begin
        if (f_past_valid && !({{ rst.active }})) begin
          assert(count_q == f_count_q);
          assert(full_q == (count_q == Depth));
          assert(empty_q == (count_q == 0));
        end
      end
`endif
    end
  endgenerate

  // Datapath: no reset. The entry at the write pointer is free whenever the FIFO is not
  // full, so it takes the input then, whether or not an item comes: the write enable is
  // the full flag alone, or nothing with WriteAlways (never full).
  generate
    if (WriteAlways != 0) begin : g_write_always
      always @(posedge clk_i) begin
        mem_q[wr_ptr_q] <= in_data_i;
      end
    end else begin : g_write_free
      always @(posedge clk_i) begin
        if (~full) begin
          mem_q[wr_ptr_q] <= in_data_i;
        end
      end
    end
  endgenerate

`ifdef FORMAL
  integer f_i;
  reg [PtrW-1:0] f_slot;
  reg [Width-1:0] f_expect;
  always @(*) begin
    // The loop counter too gets a value outside the branch, or it is a latch.
    f_i = 0;
    f_slot = rd_ptr_q;
    f_expect = f_out_seq;
    if (f_past_valid && !({{ rst.active }})) begin
      // WriteAlways's promise: the user never fills it (a push at Depth - 1 items comes
      // with a pop).
      if (WriteAlways != 0) begin
        assume(!(in_valid_i && f_count_q == LastIdx && !(out_valid_o && out_ready_i)));
      end
      assert(f_count_q <= Depth);
      assert(rd_ptr_q <= LastPtr);
      assert(wr_ptr_q <= LastPtr);
      // Entries rd_ptr_q .. rd_ptr_q + f_count_q - 1 (wrapping) hold the next items in order.
      for (f_i = 0; f_i < Depth; f_i = f_i + 1) begin
        if (f_i < f_count_q) begin
          assert(mem_q[f_slot] == f_expect);
        end
        f_slot = (f_slot == LastPtr) ? {PtrW{1'b0}} : f_slot + 1'b1;
        f_expect = f_expect + 1'b1;
      end
      // The write pointer sits f_count_q entries past the read pointer.
      assert(wr_ptr_q == ((rd_ptr_q + f_count_q >= Depth) ? rd_ptr_q + f_count_q - Depth : rd_ptr_q + f_count_q));
    end
  end
`endif
endmodule
