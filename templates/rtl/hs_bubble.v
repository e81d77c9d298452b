{{ stamp }}
// {{ name }}: bubble-squeezing handshake register (seed 000's double-rail register).
//
// One data register. It accepts a new item whenever it is empty or its item leaves in
// the same clock, so a stalled pipeline squeezes out its bubbles instead of keeping them.
//   in_ready_o = out_ready_i | ~valid_q
// Latency 1 clock; throughput 1 item per clock.
// Combinational paths: out_ready_i -> in_ready_o (ready ripples through a chain of these).
// out_valid_o and out_data_o come straight from flops.
// Cost: Width data flops (no reset), 1 valid flop (reset), one OR gate.
module {{ name }} #(
  parameter integer Width = {{ width }}
) (
{% include "rtl/hs_ports.v" %}
);

  reg valid_q;
  reg valid_d;
  reg [Width-1:0] data_q;
  wire load;

  assign in_ready_o = out_ready_i | ~valid_q;
  // The register loads whenever it may take an item, whether or not one comes, so no
  // valid bit reaches the data flops' enables (an empty register's data is never read).
  assign load       = in_ready_o;

  always @(*) begin
    valid_d = valid_q;
    if (in_ready_o) begin
      valid_d = in_valid_i;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      valid_q <= 1'b0;
    end else begin
      valid_q <= valid_d;
    end
  end

  // Datapath: no reset.
  always @(posedge clk_i) begin
    if (load) begin
      data_q <= in_data_i;
    end
  end

  assign out_valid_o = valid_q;
  assign out_data_o  = data_q;

`ifdef FORMAL
  wire [7:0] f_occupancy = {7'd0, valid_q};
{% include "rtl/hs_formal.v" %}
`endif
endmodule
