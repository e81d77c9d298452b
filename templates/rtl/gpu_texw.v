{{ stamp }}
// {{ name }}: the GPU's texture writer, requester "{{ requester }}" of the memory arbiter.
//
// COPY_TEX_IMAGE's writes {address, word} (address in {{ word_bits }}-bit words) land at byte
// {{ tex_base_hex }} + {{ word_bytes }} * address (the texture area), each a one-beat write whose byte
// enables select the word's bytes; a word at or past {{ tex_words }} words (the area's end) is
// dropped.
// Requests pass through a skid register (hs_skid) and write beats through a two-entry
// FIFO (hs_fifo), pushed as their request is.
// Combinational paths: none; tex_ready_o comes from the skid's and the FIFO's flops.
module {{ name }} #(
  // Write beats queued behind their requests: free to override (at least 2).
  parameter integer WFifoDepth = 2
) (
  input  wire clk_i,
  input  wire {{ rst.port }},
  input  wire tex_valid_i,
  output wire tex_ready_o,
  input  wire [{{ tex_bits - 1 }}:0] tex_data_i,
  output wire mem_req_valid_o,
  input  wire mem_req_ready_i,
  output wire [{{ req_bits - 1 }}:0] mem_req_data_o,
  output wire mem_wdata_valid_o,
  input  wire mem_wdata_ready_i,
  output wire [{{ wbeat_bits - 1 }}:0] mem_wdata_data_o
);

  localparam integer WordW     = {{ word_bits }};
  localparam integer ReqW      = {{ req_bits }};
  localparam integer LenW      = {{ len_bits }};
  localparam integer WBeatW    = {{ wbeat_bits }};
  localparam integer StrbW     = {{ strb_bits }};
  localparam integer BeatShift = {{ beat_shift }};
  localparam [31:0]  TexBase   = {{ tex_base_hex }};
  localparam [31:0]  TexWords  = {{ tex_words_hex }};
  // Request word fields (the arbiter's request layout).
{%- for f in req_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}

  wire skid_ready;
  wire wfifo_ready;
  wire [31:0] waddr = tex_data_i[WordW +: 32];
  wire [WordW-1:0] word = tex_data_i[WordW-1:0];
  wire in_area = waddr < TexWords;
  // TexBase is beat-aligned: the word's beat is TexBase's plus the address's high bits.
  wire [31-BeatShift:0] bbeat = TexBase[31:BeatShift] + {{ waddr_beat }};
  wire go = tex_valid_i & in_area & skid_ready & wfifo_ready;
  assign tex_ready_o = skid_ready & wfifo_ready;

  wire [ReqW-1:0] req;
  assign req[ReqAddrLsb +: 32]  = {bbeat, {BeatShift{1'b0}}};
  assign req[ReqLenLsb +: LenW] = {LenW{1'b0}};
{%- if wpb > 1 %}
  wire [StrbW-1:0] strb = {{ word_strb }} << ({{ word_bytes }} * waddr[{{ wpb_bits - 1 }}:0]);
{%- else %}
  wire [StrbW-1:0] strb = {{ word_strb }};
{%- endif %}

  {{ fifo }} #(
    .Width(WBeatW),
    .Depth(WFifoDepth)
  ) u_wbeat_fifo (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (go),
    .in_ready_o (wfifo_ready),
    .in_data_i  ({strb, { {{- wpb -}} {word}}}),
    .out_valid_o(mem_wdata_valid_o),
    .out_ready_i(mem_wdata_ready_i),
    .out_data_o (mem_wdata_data_o)
  );

  {{ skid }} #(
    .Width(ReqW)
  ) u_req_skid (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (go),
    .in_ready_o (skid_ready),
    .in_data_i  (req),
    .out_valid_o(mem_req_valid_o),
    .out_ready_i(mem_req_ready_i),
    .out_data_o (mem_req_data_o)
  );

endmodule
