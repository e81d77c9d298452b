{{ stamp }}
// {{ name }}: pixel map stage of the IPU (seed 000, main pipeline stage 5; glPixelMap with
// MAP_COLOR). For every channel whose bit is set in Maps (R, G, B, A = bits 0..3), while
// map_color_i is on, component c becomes entry round(c / 255 * (size - 1)) of its table
// (size_i holds size - 1 per channel); a table never loaded is GL's initial one-entry map
// of 0. The divide by 255 is the constant multiply (p * MulK + 2^(MulShift-1)) >> MulShift
// with p = c * (size - 1), which src/model/ipu.rs checks equals the exact rounding for
// every p. Tables: TableSize x 8 bits per channel and lane, written one entry a clock
// (we_i, wsel_i, waddr_i, wdata_i) while the pipeline is empty, read synchronously.
{%- if index %}
// Colour-index draws (index_i, GL's colour index lookup, MAP_COLOR or not): the index in
// the R byte is shifted by ishift_i (signed; right shifts drop bits), ioff_i added, and
// channel ch becomes entry (index & imask_i[ch]) of its I_TO_* table (bit ch of
// IndexMaps; imask_i holds size - 1, a power of two less one); channels without a
// generated or loaded I_TO_* map are 0 (GL's initial one-entry map of 0).
{%- endif %}
// Lanes outside a beat's mask stay 0.
// Stages ({{ stages }}, from the clock's schedule, iface::ipu::Pipe): {{ stage_doc }}.
// Each is a bubble register (in_ready = ~valid | ready behind it): a beat a clock.
// Latency: {{ stages }} register(s); a beat a clock.
// Combinational paths: out_ready_i -> in_ready_o.
module {{ name }} #(
  parameter integer Lanes = {{ lanes }},
  parameter integer TableSize = {{ size }},
  // Which maps exist: bit 0 R->R, 1 G->G, 2 B->B, 3 A->A.
  parameter [3:0] Maps = 4'b{{ maps_bits }},
{%- if index %}
  // Which colour-index maps exist: bit 0 I->R, 1 I->G, 2 I->B, 3 I->A.
  parameter [3:0] IndexMaps = 4'b{{ imaps_bits }},
{%- endif %}
  // Beat: {% if multi %}{mask[Lanes], y, x, Lanes x RGBA8}{% else %}{y, x, RGBA8}{% endif %}.
  parameter integer BeatWidth = {{ beat_w }},
  // Derived, not for overriding: a table address. A parameter only because ports need it
  // and Verilog-2005 declares localparams after the port list.
  parameter integer AddrW = (TableSize > 1) ? $clog2(TableSize) : 1
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire map_color_i,
  // A channel whose map is not generated reads neither its size nor its loaded bit.
  input wire [4*AddrW-1:0] size_i,
  input wire [3:0] loaded_i,
{%- if index %}
  input wire index_i,
  input wire [4:0] ishift_i,
  input wire [AddrW-1:0] ioff_i,
  // A channel whose I_TO_* map is not generated reads neither its mask nor its loaded bit.
  input wire [4*AddrW-1:0] imask_i,
  input wire [3:0] iloaded_i,
{%- endif %}
  input wire we_i,
  // The map written: {I_TO_*, channel[1:0]}.
  input wire [2:0] wsel_i,
  input wire [AddrW-1:0] waddr_i,
  input wire [7:0] wdata_i,
  input wire in_valid_i,
  output wire in_ready_o,
  input wire [BeatWidth-1:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [BeatWidth-1:0] out_data_o,
  output wire busy_o
);

  localparam integer SizeW = AddrW;
  localparam integer MulShift = {{ shift }};
  localparam integer ProdW = 8 + SizeW;
  localparam integer WideW = ProdW + {{ k_bits }};
  localparam [WideW-1:0] MulK = {{ "{{" }}(WideW-{{ k_bits }}){1'b0}}, {{ k_bits }}'d{{ k }}};
  localparam [WideW-1:0] Half = {{ "{{" }}(WideW-MulShift){1'b0}}, 1'b1, {(MulShift-1){1'b0}}};
  // The stages' handshake: stage k loads when its input is valid and it is empty or its
  // beat leaves; every stage holds the beat.
{%- for h in hs %}
  reg valid{{ h.k }}_q;
  reg [BeatWidth-1:0] beat{{ h.k }}_q;
{%- endfor %}
{%- for h in hs %}
  wire ready{{ h.k }};
  wire load{{ h.k }};
{%- endfor %}
{%- for h in hs %}
  assign ready{{ h.k }} = ~valid{{ h.k }}_q | {{ h.behind }};
  assign load{{ h.k }}  = {{ h.offer }} & ready{{ h.k }};
{%- endfor %}

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
{%- for h in hs %}
      valid{{ h.k }}_q <= 1'b0;
{%- endfor %}
    end else begin
{%- for h in hs %}
      valid{{ h.k }}_q <= load{{ h.k }} | (valid{{ h.k }}_q & ~{{ h.behind }});
{%- endfor %}
    end
  end

  always @(posedge clk_i) begin
{%- for h in hs %}
    if (load{{ h.k }}) begin
      beat{{ h.k }}_q <= {{ h.src }};
    end
{%- endfor %}
  end
  assign in_ready_o  = ready0;
  assign out_valid_o = valid{{ last }}_q;
  assign busy_o      = {{ busy }};
  // The beat at the output: its meta fields and raw pixels.
  wire [BeatWidth-1:0] out_beat = beat{{ last }}_q;
  assign out_data_o[BeatWidth-1:32*Lanes] = out_beat[BeatWidth-1:32*Lanes];
{%- if multi %}
  wire [Lanes-1:0] mask = out_beat[BeatWidth-1:BeatWidth-Lanes];
{%- endif %}
  // MAP_COLOR and the draw's kind are constant while pixels are in the stage (they change
  // only once the unit is empty).
  wire use_map = map_color_i;
{%- if index %}
  wire use_index = index_i;
  // Right shifts by 1..16 (a shift of -16..-1); 16 clears every index bit.
  wire [4:0] rshift = 5'd0 - ishift_i;
{%- endif %}

  genvar l;
  genvar ch;
  generate
    for (l = 0; l < Lanes; l = l + 1) begin : g_lane
{%- if index %}
      // GL's index arithmetic on the index in R: only the low AddrW bits reach a table.
      wire [AddrW+7:0] ci = {{ "{{" }}AddrW{1'b0}}, in_data_i[32*l +: 8]};
      wire [AddrW+7:0] ci_shl = ci << ishift_i[3:0];
      wire [AddrW+7:0] ci_shr = ci >> rshift;
      wire [AddrW+7:0] ci_sh = ishift_i[4] ? ci_shr : ci_shl;
      wire unused_ci_sh;
      assign unused_ci_sh = ^ci_sh[AddrW+7:AddrW];
{%- if !ci_add_late %}
      wire [AddrW-1:0] ci_in = ci_sh[AddrW-1:0] + ioff_i;
{%- endif %}
{%- if k_read > 0 %}
      // Carried to the tables' read with the beat.
{%- for h in ci_hops %}
      reg [AddrW-1:0] ci{{ h.0 }}_q;
      always @(posedge clk_i) begin
        if (load{{ h.0 }}) begin
          ci{{ h.0 }}_q <= {{ h.1 }};
        end
      end
{%- endfor %}
      wire [AddrW-1:0] ci_index = ci{{ k_read - 1 }}_q;
{%- else %}
      wire [AddrW-1:0] ci_index = ci_in;
{%- endif %}
{%- endif %}
      for (ch = 0; ch < 4; ch = ch + 1) begin : g_channel
        wire [7:0] c = in_data_i[32*l + 8*ch +: 8];
        wire [7:0] raw = out_beat[32*l + 8*ch +: 8];
        wire [7:0] value;
        if (Maps[ch]) begin : g_map
          localparam [2:0] Sel = ch;
          // Written only while no pixel is in the unit (the FSM's PIXELMAP waits for
          // drained): a read never meets a write it would have to see or not see, so
          // synthesis adds no read-during-write bypass (no_rw_check) and the RAM's own
          // output register can take the read data's second register.
          (* no_rw_check *)
          reg [7:0] table_q [0:TableSize-1];
          reg [7:0] entry_q;
          // The index: p = c * (size - 1), then (p * MulK + Half) >> MulShift; only the
          // bits from MulShift up form it.
{%- if operands %}
          // The first multiply's operands in plain registers (no reset, no select): an
          // FPGA's DSP block takes them in as its input registers.
          reg [7:0] c_q;
          reg [SizeW-1:0] size_q;
          always @(posedge clk_i) begin
            if (load0) begin
              c_q    <= c;
              size_q <= size_i[SizeW*ch +: SizeW];
            end
          end
          wire [ProdW-1:0] p = {{ "{{" }}SizeW{1'b0}}, c_q} * {8'd0, size_q};
{%- else %}
          wire [ProdW-1:0] p = {{ "{{" }}SizeW{1'b0}}, c} * {8'd0, size_i[SizeW*ch +: SizeW]};
{%- endif %}
{%- if prod %}
          reg [ProdW-1:0] p_q;
          always @(posedge clk_i) begin
            if (load{{ k_prod }}) begin
              p_q <= p;
            end
          end
          wire [ProdW-1:0] p_use = p_q;
{%- else %}
          wire [ProdW-1:0] p_use = p;
{%- endif %}
{%- if scaled %}
          reg [WideW-1:0] pk_q;
          always @(posedge clk_i) begin
            if (load{{ k_scaled }}) begin
              pk_q <= {{ "{{" }}(WideW-ProdW){1'b0}}, p_use} * MulK;
            end
          end
          wire [WideW-1:0] wide = pk_q + Half;
{%- else %}
          wire [WideW-1:0] wide = {{ "{{" }}(WideW-ProdW){1'b0}}, p_use} * MulK + Half;
{%- endif %}
          wire unused_wide;
          assign unused_wide = ^wide;
          wire [AddrW-1:0] index = wide[MulShift +: AddrW];
          always @(posedge clk_i) begin
            if (we_i & (wsel_i == Sel)) begin
              table_q[waddr_i] <= wdata_i;
            end
          end
          always @(posedge clk_i) begin
            if (load{{ k_read }}) begin
              entry_q <= table_q[index];
            end
          end
{%- if rdata %}
          // Two-clock read: the read data registered again before any logic.
          reg [7:0] rdata_q;
          always @(posedge clk_i) begin
            if (load{{ k_data }}) begin
              rdata_q <= entry_q;
            end
          end
          wire [7:0] mapped = loaded_i[ch] ? rdata_q : 8'd0;
{%- else %}
          wire [7:0] mapped = loaded_i[ch] ? entry_q : 8'd0;
{%- endif %}
          assign value = use_map ? mapped : raw;
        end else begin : g_pass
          wire unused_size;
          assign unused_size = ^{size_i[SizeW*ch +: SizeW], loaded_i[ch], c};
          assign value = raw;
        end
{%- if index %}
        wire [7:0] ivalue;
        if (IndexMaps[ch]) begin : g_index_map
          localparam [2:0] Sel = ch + 4;
          (* no_rw_check *)  // written only while the unit is empty, as table_q
          reg [7:0] itable_q [0:TableSize-1];
          reg [7:0] ientry_q;
          always @(posedge clk_i) begin
            if (we_i & (wsel_i == Sel)) begin
              itable_q[waddr_i] <= wdata_i;
            end
          end
          always @(posedge clk_i) begin
            if (load{{ k_read }}) begin
              ientry_q <= itable_q[ci_index & imask_i[AddrW*ch +: AddrW]];
            end
          end
{%- if rdata %}
          reg [7:0] irdata_q;
          always @(posedge clk_i) begin
            if (load{{ k_data }}) begin
              irdata_q <= ientry_q;
            end
          end
          assign ivalue = iloaded_i[ch] ? irdata_q : 8'd0;
{%- else %}
          assign ivalue = iloaded_i[ch] ? ientry_q : 8'd0;
{%- endif %}
        end else begin : g_index_none
          wire unused_imask;
          assign unused_imask = ^{imask_i[AddrW*ch +: AddrW], iloaded_i[ch]};
          assign ivalue = 8'd0;
        end
        wire [7:0] result = use_index ? ivalue : value;
{%- else %}
        wire [7:0] result = value;
{%- endif %}
{%- if multi %}
        assign out_data_o[32*l + 8*ch +: 8] = mask[l] ? result : 8'd0;
{%- else %}
        assign out_data_o[32*l + 8*ch +: 8] = result;
{%- endif %}
      end
    end
  endgenerate

endmodule
