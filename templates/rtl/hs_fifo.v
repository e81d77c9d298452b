{{ stamp }}
// {{ name }}: synchronous FIFO of Depth entries with a valid/ready interface.
//
// Storage is a flop array (small handshake FIFOs; a RAM-backed FIFO would add a read
// clock to the output). An item written this clock is visible at the output next clock.
// Latency 1 clock; throughput 1 item per clock for Depth >= 2. Depth = 1 is half rate:
// in_ready_o is registered, so the single entry cannot be refilled in the clock it
// drains (use `bubble` or `skid` for a one-item full-rate slice).
// Combinational paths: none. in_ready_o and out_valid_o decode the count flops;
// out_data_o is a Depth:1 mux of flops addressed by a flop.
// Cost: Depth x Width data flops (no reset), 2 pointers and a count (reset).
module {{ name }} #(
  parameter integer Width = {{ width }},
  parameter integer Depth = {{ depth }}
) (
{% include "rtl/hs_ports.v" %}
);

  // Guarded so that Depth = 1 never yields a zero-width pointer.
  localparam integer PtrW = (Depth > 1) ? $clog2(Depth) : 1;
  localparam integer CntW = $clog2(Depth + 1);
  localparam integer LastIdx = Depth - 1;
  localparam [PtrW-1:0] LastPtr = LastIdx[PtrW-1:0];
  localparam [CntW-1:0] FullCount = Depth[CntW-1:0];

  reg [Width-1:0] mem_q [0:Depth-1];
  reg [PtrW-1:0] wr_ptr_q;
  reg [PtrW-1:0] wr_ptr_d;
  reg [PtrW-1:0] rd_ptr_q;
  reg [PtrW-1:0] rd_ptr_d;
  reg [CntW-1:0] count_q;
  reg [CntW-1:0] count_d;
  wire push;
  wire pop;

  assign in_ready_o  = (count_q != FullCount);
  assign out_valid_o = (count_q != {CntW{1'b0}});
  assign out_data_o  = mem_q[rd_ptr_q];
  assign push        = in_valid_i & in_ready_o;
  assign pop         = out_valid_o & out_ready_i;

  always @(*) begin
    wr_ptr_d = wr_ptr_q;
    rd_ptr_d = rd_ptr_q;
    count_d  = count_q;
    if (push) begin
      wr_ptr_d = (wr_ptr_q == LastPtr) ? {PtrW{1'b0}} : wr_ptr_q + 1'b1;
    end
    if (pop) begin
      rd_ptr_d = (rd_ptr_q == LastPtr) ? {PtrW{1'b0}} : rd_ptr_q + 1'b1;
    end
    if (push & ~pop) begin
      count_d = count_q + 1'b1;
    end else if (pop & ~push) begin
      count_d = count_q - 1'b1;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      wr_ptr_q <= {PtrW{1'b0}};
      rd_ptr_q <= {PtrW{1'b0}};
      count_q  <= {CntW{1'b0}};
    end else begin
      wr_ptr_q <= wr_ptr_d;
      rd_ptr_q <= rd_ptr_d;
      count_q  <= count_d;
    end
  end

  // Datapath: no reset; only the written entry changes.
  always @(posedge clk_i) begin
    if (push) begin
      mem_q[wr_ptr_q] <= in_data_i;
    end
  end

`ifdef FORMAL
  wire [7:0] f_occupancy = count_q;
{% include "rtl/hs_formal.v" %}
  integer f_i;
  reg [PtrW-1:0] f_slot;
  reg [Width-1:0] f_expect;
  always @(*) begin
    // The loop counter too gets a value outside the branch, or it is a latch.
    f_i = 0;
    f_slot = rd_ptr_q;
    f_expect = f_out_seq;
    if (f_past_valid && !({{ rst.active }})) begin
      assert(count_q <= FullCount);
      assert(rd_ptr_q <= LastPtr);
      assert(wr_ptr_q <= LastPtr);
      // Entries rd_ptr_q .. rd_ptr_q + count_q - 1 (wrapping) hold the next items in order.
      for (f_i = 0; f_i < Depth; f_i = f_i + 1) begin
        if (f_i < count_q) begin
          assert(mem_q[f_slot] == f_expect);
        end
        f_slot = (f_slot == LastPtr) ? {PtrW{1'b0}} : f_slot + 1'b1;
        f_expect = f_expect + 1'b1;
      end
      // The write pointer sits count_q entries past the read pointer.
      assert(wr_ptr_q == ((rd_ptr_q + count_q >= Depth) ? rd_ptr_q + count_q - Depth : rd_ptr_q + count_q));
    end
  end
`endif
endmodule
