{{ stamp }}
// {{ name }}: a GPU engine's read buffer: the read beats of its requester wait here, in a
// block-RAM FIFO ({{ ram_fifo }}), until the engine takes them. The engine requests a burst
// only against credit_o, the entries neither full nor promised to a burst requested
// (issue_i with issue_beats_i beats) and not yet back, so the arbiter never holds a read
// beat for this requester and no other reader waits behind one. A beat popped returns
// its entry.
// Combinational paths: none between ports (credit_o is a flop, in_ready_o the FIFO's).
module {{ name }} #(
  parameter integer Width = {{ width }},
  // Entries: a power of two, at least two bursts.
  parameter integer Depth = {{ depth }},
  // Credits and a burst's beats: at least $clog2(Depth + 1) bits.
  parameter integer CntW = {{ cnt_bits }}
) (
  input  wire clk_i,
  input  wire {{ rst.port }},
  input  wire issue_i,
  input  wire [CntW-1:0] issue_beats_i,
  output wire [CntW-1:0] credit_o,
  input  wire in_valid_i,
  output wire in_ready_o,
  input  wire [Width-1:0] in_data_i,
  output wire out_valid_o,
  input  wire out_ready_i,
  output wire [Width-1:0] out_data_o
);

  localparam [CntW-1:0] Credits = Depth[CntW-1:0];

  reg [CntW-1:0] credit_q;
  wire pop = out_valid_o & out_ready_i;
  assign credit_o = credit_q;

  {{ ram_fifo }} #(
    .Width(Width),
    .Depth(Depth)
  ) u_ram (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (in_valid_i),
    .in_ready_o (in_ready_o),
    .in_data_i  (in_data_i),
    .out_valid_o(out_valid_o),
    .out_ready_i(out_ready_i),
    .out_data_o (out_data_o)
  );

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      credit_q <= Credits;
    end else begin
      credit_q <= credit_q + { {(CntW - 1){1'b0}}, pop}
                  - (issue_i ? issue_beats_i : {CntW{1'b0}});
    end
  end

endmodule
