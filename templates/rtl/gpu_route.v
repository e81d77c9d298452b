{{ stamp }}
// {{ name }}: the GPU's command router, behind the IPU. The IPU passes on, in order, every
// word of the command stream that is not its own; here a memory manager command
// ({{ op_hex }} MEM: 2 words; word 0 {op[31:24], {{ pad_bits }}'b0, {{ hdr_desc }}}, word 1 the
// argument) goes to the memory manager's request port as {arg, {{ hdr_desc }}}; a TMU
// descriptor write ({{ tmu_op_hex }} TMU: word 0 {op[31:24], 0, tex[{{ tex_bits }}], reg[{{ reg_bits }}]}, word 1 the data)
// goes to the TMU's request port as its write command; every other word leaves on pass,
// in order. As the IPU's decoder does, the router reads the opcode of every word it is
// not inside a command of.
// The words come in through a skid register, so the IPU's pass port sees a ready from a
// flop, not the memory manager's, the TMU's or the pass port's ready through the decode.
// Combinational paths: none from the input (the skid's flops drive in_ready_o); the
// skid's output words -> pass_valid_o, mm_valid_o, tmu_valid_o.
module {{ name }} #(
  // The TMU write command's register and texture fields (the TMU's layout; the top sets
  // them).
  parameter integer RegW = {{ reg_bits }},
  parameter integer TexW = {{ tex_bits }}
) (
  input  wire clk_i,
  input  wire {{ rst.port }},
  input  wire in_valid_i,
  output wire in_ready_o,
  input  wire [31:0] in_data_i,
  output wire pass_valid_o,
  input  wire pass_ready_i,
  output wire [31:0] pass_data_o,
  output wire mm_valid_o,
  input  wire mm_ready_i,
  output wire [{{ mm_bits - 1 }}:0] mm_data_o,
  output wire tmu_valid_o,
  input  wire tmu_ready_i,
  output wire [{{ tmu_bits - 1 }}:0] tmu_data_o
);

  localparam integer HdrW    = {{ hdr_w }};  // word 0's fields: the larger of the two commands'
  localparam integer MemHdrW = {{ hdr_bits }};  // a MEM request's fields below its argument
  localparam [7:0]   OpMem   = {{ op_hex }};
  localparam [7:0]   OpTmu   = {{ tmu_op_hex }};

  wire        w_valid;
  wire        w_ready;
  wire [31:0] w_data;

  {{ skid }} #(
    .Width(32)
  ) u_in_skid (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (in_valid_i),
    .in_ready_o (in_ready_o),
    .in_data_i  (in_data_i),
    .out_valid_o(w_valid),
    .out_ready_i(w_ready),
    .out_data_o (w_data)
  );

  reg            hdr_valid_q;  // a command's first word is held
  reg            hdr_tmu_q;    // and it is a TMU write's
  reg [HdrW-1:0] hdr_q;

  wire is_mem = w_data[31:24] == OpMem;
  wire is_tmu = w_data[31:24] == OpTmu;
  wire is_cmd = is_mem | is_tmu;
  // Word 0 of a command is taken into the header register; word 1 leaves with it.
  assign mm_valid_o   = w_valid & hdr_valid_q & ~hdr_tmu_q;
  assign mm_data_o    = {w_data, hdr_q[MemHdrW-1:0]};
  assign tmu_valid_o  = w_valid & hdr_valid_q & hdr_tmu_q;
  assign tmu_data_o   = {1'b1, {{ tmu_pad }}hdr_q[RegW +: TexW], hdr_q[RegW-1:0], w_data};
  assign pass_valid_o = w_valid & ~hdr_valid_q & ~is_cmd;
  assign pass_data_o  = w_data;
  assign w_ready      = hdr_valid_q ? (hdr_tmu_q ? tmu_ready_i : mm_ready_i) : (is_cmd | pass_ready_i);
  wire   take_hdr     = w_valid & ~hdr_valid_q & is_cmd;

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      hdr_valid_q <= 1'b0;
    end else if (take_hdr) begin
      hdr_valid_q <= 1'b1;
    end else if ((mm_valid_o && mm_ready_i) || (tmu_valid_o && tmu_ready_i)) begin
      hdr_valid_q <= 1'b0;
    end
  end

  always @(posedge clk_i) begin
    if (take_hdr) begin
      hdr_q     <= w_data[HdrW-1:0];
      hdr_tmu_q <= is_tmu;
    end
  end

endmodule
