{{ stamp }}
// {{ name }}: the GPU's command router, behind the IPU. The IPU passes on, in order, every
// word of the command stream that is not its own; here a memory manager command
// ({{ op_hex }} MEM: 2 words; word 0 {op[31:24], {{ pad_bits }}'b0, {{ hdr_desc }}}, word 1 the
// argument) goes to the memory manager's request port as {arg, {{ hdr_desc }}}, and every
// other word leaves on pass, in order. As the IPU's decoder does, the router reads the
// opcode of every word it is not inside a command of.
// Combinational paths: in_valid_i -> pass_valid_o, mm_valid_o; pass_ready_i, mm_ready_i ->
// in_ready_o.
module {{ name }} (
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
  output wire [{{ mm_bits - 1 }}:0] mm_data_o
);

  localparam integer HdrW  = {{ hdr_bits }};  // the request's fields below its argument
  localparam [7:0]   OpMem = {{ op_hex }};

  reg            hdr_valid_q;  // a MEM command's first word is held
  reg [HdrW-1:0] hdr_q;

  wire is_mem = in_data_i[31:24] == OpMem;
  // Word 0 of a MEM command is taken into the header register; word 1 leaves with it.
  assign mm_valid_o   = in_valid_i & hdr_valid_q;
  assign mm_data_o    = {in_data_i, hdr_q};
  assign pass_valid_o = in_valid_i & ~hdr_valid_q & ~is_mem;
  assign pass_data_o  = in_data_i;
  assign in_ready_o   = hdr_valid_q ? mm_ready_i : (is_mem | pass_ready_i);
  wire   take_hdr     = in_valid_i & ~hdr_valid_q & is_mem;

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      hdr_valid_q <= 1'b0;
    end else if (take_hdr) begin
      hdr_valid_q <= 1'b1;
    end else if (mm_valid_o && mm_ready_i) begin
      hdr_valid_q <= 1'b0;
    end
  end

  always @(posedge clk_i) begin
    if (take_hdr) begin
      hdr_q <= in_data_i[HdrW-1:0];
    end
  end

endmodule
