{{ stamp }}
// {{ name }}: the GPU's command router, behind the IPU. The IPU passes on, in order, every
// word of the command stream that is not its own; here a memory manager command
// ({{ op_hex }} MEM: 2 words; word 0 {op[31:24], {{ pad_bits }}'b0, {{ hdr_desc }}}, word 1 the
// argument) goes to the memory manager's request port as {arg, {{ hdr_desc }}}; a TMU
// descriptor write ({{ tmu_op_hex }} TMU: word 0 {op[31:24], 0, tex[{{ tex_bits }}], reg[{{ reg_bits }}]}, word 1 the data)
// goes to the TMU's request port as its write command; every other word leaves on pass,
// in order. As the IPU's decoder does, the router reads the opcode of every word it is
// not inside a command of.
// Combinational paths: in_valid_i -> pass_valid_o, mm_valid_o, tmu_valid_o; pass_ready_i,
// mm_ready_i, tmu_ready_i -> in_ready_o.
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

  reg            hdr_valid_q;  // a command's first word is held
  reg            hdr_tmu_q;    // and it is a TMU write's
  reg [HdrW-1:0] hdr_q;

  wire is_mem = in_data_i[31:24] == OpMem;
  wire is_tmu = in_data_i[31:24] == OpTmu;
  wire is_cmd = is_mem | is_tmu;
  // Word 0 of a command is taken into the header register; word 1 leaves with it.
  assign mm_valid_o   = in_valid_i & hdr_valid_q & ~hdr_tmu_q;
  assign mm_data_o    = {in_data_i, hdr_q[MemHdrW-1:0]};
  assign tmu_valid_o  = in_valid_i & hdr_valid_q & hdr_tmu_q;
  assign tmu_data_o   = {1'b1, {{ tmu_pad }}hdr_q[RegW +: TexW], hdr_q[RegW-1:0], in_data_i};
  assign pass_valid_o = in_valid_i & ~hdr_valid_q & ~is_cmd;
  assign pass_data_o  = in_data_i;
  assign in_ready_o   = hdr_valid_q ? (hdr_tmu_q ? tmu_ready_i : mm_ready_i) : (is_cmd | pass_ready_i);
  wire   take_hdr     = in_valid_i & ~hdr_valid_q & is_cmd;

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
      hdr_q     <= in_data_i[HdrW-1:0];
      hdr_tmu_q <= is_tmu;
    end
  end

endmodule
