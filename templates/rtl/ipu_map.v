{{ stamp }}
// {{ name }}: pixel map stage of the IPU (seed 000, main pipeline stage 5; glPixelMap with
// MAP_COLOR). For every channel whose bit is set in Maps (R, G, B, A = bits 0..3), while
// map_color_i is on, component c becomes entry round(c / 255 * (size - 1)) of its table
// (size_i holds size - 1 per channel); a table never loaded is GL's initial one-entry map
// of 0. The divide by 255 is the constant multiply (p * MulK + 2^(MulShift-1)) >> MulShift
// with p = c * (size - 1), which src/model/ipu.rs checks equals the exact rounding for
// every p. Tables: TableSize x 8 bits per channel and lane, written one entry a clock
// (we_i, wch_i, waddr_i, wdata_i) while the pipeline is empty, read synchronously.
// Lanes outside a beat's mask stay 0.
// Latency: one register (the output, with the tables' read register); a beat a clock.
// Combinational paths: out_ready_i -> in_ready_o.
module {{ name }} #(
  parameter integer Lanes     = {{ lanes }},
  parameter integer TableSize = {{ size }},
  // Which maps exist: bit 0 R->R, 1 G->G, 2 B->B, 3 A->A.
  parameter [3:0]   Maps      = 4'b{{ maps_bits }},
  // Beat: {% if multi %}{mask[Lanes], y, x, Lanes x RGBA8}{% else %}{y, x, RGBA8}{% endif %}.
  parameter integer BeatWidth = {{ beat_w }}
) (
  input  wire        clk_i,
  input  wire        {{ rst.port }},
  input  wire        map_color_i,
  // A channel whose map is not generated reads neither its size nor its loaded bit.
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [4*SizeW-1:0] size_i,
  input  wire [3:0]  loaded_i,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire        we_i,
  input  wire [1:0]  wch_i,
  input  wire [AddrW-1:0] waddr_i,
  input  wire [7:0]  wdata_i,
  input  wire        in_valid_i,
  output wire        in_ready_o,
  input  wire [BeatWidth-1:0] in_data_i,
  output wire        out_valid_o,
  input  wire        out_ready_i,
  output wire [BeatWidth-1:0] out_data_o,
  output wire        busy_o
);

  localparam integer AddrW    = (TableSize > 1) ? $clog2(TableSize) : 1;
  localparam integer SizeW    = AddrW;
  localparam integer MulShift = {{ shift }};
  localparam integer ProdW    = 8 + SizeW;
  localparam integer WideW    = ProdW + {{ k_bits }};
  localparam [WideW-1:0] MulK = {{ "{{" }}(WideW-{{ k_bits }}){1'b0}}, {{ k_bits }}'d{{ k }}};
  localparam [WideW-1:0] Half = {{ "{{" }}(WideW-MulShift){1'b0}}, 1'b1, {(MulShift-1){1'b0}}};
  localparam integer Meta = BeatWidth - 32 * Lanes;

  reg          out_valid_q;
  reg  [Meta-1:0] meta_q;
  wire         load = in_valid_i & (~out_valid_q | out_ready_i);
  assign in_ready_o  = ~out_valid_q | out_ready_i;
  assign out_valid_o = out_valid_q;
  assign busy_o      = out_valid_q;
{%- if multi %}
  wire [Lanes-1:0] mask = meta_q[Meta-1:32];
{%- endif %}

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      out_valid_q <= 1'b0;
    end else begin
      out_valid_q <= load | (out_valid_q & ~out_ready_i);
    end
  end

  always @(posedge clk_i) begin
    if (load) begin
      meta_q <= in_data_i[BeatWidth-1:32*Lanes];
    end
  end
  assign out_data_o[BeatWidth-1:32*Lanes] = meta_q;

  genvar l, ch;
  generate
    for (l = 0; l < Lanes; l = l + 1) begin : g_lane
      for (ch = 0; ch < 4; ch = ch + 1) begin : g_channel
        wire [7:0] c = in_data_i[32*l + 8*ch +: 8];
        reg  [7:0] raw_q;
        always @(posedge clk_i) begin
          if (load) begin
            raw_q <= c;
          end
        end
        if (Maps[ch]) begin : g_map
          localparam [1:0] Ch = ch;
          reg  [7:0] table_q [0:TableSize-1];
          reg  [7:0] entry_q;
          reg        use_q;
          wire [ProdW-1:0] p = {{ "{{" }}SizeW{1'b0}}, c} * {8'd0, size_i[SizeW*ch +: SizeW]};
          // Only the bits from MulShift up form the index.
          /* verilator lint_off UNUSEDSIGNAL */
          wire [WideW-1:0] wide = {{ "{{" }}(WideW-ProdW){1'b0}}, p} * MulK + Half;
          /* verilator lint_on UNUSEDSIGNAL */
          wire [AddrW-1:0] index = wide[MulShift +: AddrW];
          always @(posedge clk_i) begin
            if (we_i & (wch_i == Ch)) begin
              table_q[waddr_i] <= wdata_i;
            end
          end
          always @(posedge clk_i) begin
            if (load) begin
              entry_q <= table_q[index];
              use_q   <= map_color_i;
            end
          end
          wire [7:0] mapped = loaded_i[ch] ? entry_q : 8'd0;
          wire [7:0] value  = use_q ? mapped : raw_q;
{%- if multi %}
          assign out_data_o[32*l + 8*ch +: 8] = mask[l] ? value : 8'd0;
{%- else %}
          assign out_data_o[32*l + 8*ch +: 8] = value;
{%- endif %}
        end else begin : g_pass
          assign out_data_o[32*l + 8*ch +: 8] = raw_q;
        end
      end
    end
  endgenerate

endmodule
