{{ stamp }}
// {{ name }}: the GPU subsystem (seeds 000, 001 and 002 on one memory): the image
// processing unit ({{ ipu }}), the texture mapping unit with its cache ({{ tmu }}) and the
// engines that turn their streams into bursts, joined on one memory port by the memory
// arbiter ({{ arb }}).
//
// cmd:    the command stream; the IPU takes its own commands and passes every other word
//         on, in order, to the router ({{ route }}): memory manager commands go to
//         {{ mm }}, whose responses leave on mm_rsp; TMU descriptor writes go to the TMU,
//         ahead of sample's requests; every other word leaves on pass.
// status: the IPU's status events.
// sample: the TMU's commands (descriptor writes and sample requests); color: its colours.
{%- for h in host_lines %}
// {{ h }}
{%- endfor %}
// mem_*:  the memory port ({{ data_bits }}-bit beats; a write beat is {strb[{{ strb_bits }}], data}).
//
// Requesters (README "The GPU top"):
{%- for r in reqs %}
//   {{ r.name }}: {{ r.what }}
{%- endfor %}
// Memory map: DMA words drawn from a {{ dma_ring }} ring at {{ dma_base }}, the framebuffer
// ({{ fb_width }} x {{ fb_height }} RGBA8) at {{ fb_base }}{% if framebuffer %}, READ_PIXELS' words to a {{ read_ring }} ring at
// {{ read_base }}, COPY_TEX_IMAGE's words into the texture area at {{ tex_base }}{% endif %}.
// Combinational paths: the arbiter's (every host requester's req_ready on every
// requester's req_valid). Every other output comes from the units' and engines' flops.
module {{ name }} #(
  // The DMA and framebuffer engines' read buffers, in beats: free to override (powers of
  // two, at least two of the requester's bursts).
  parameter integer DmaBufDepth = {{ dma_buf }}{% if framebuffer %},
  parameter integer FbBufDepth  = {{ fb_buf }}{% endif %}
) (
  input  wire clk_i,
  input  wire {{ rst.port }},
  input  wire cmd_valid_i,
  output wire cmd_ready_o,
  input  wire [31:0] cmd_data_i,
  input  wire sample_valid_i,
  output wire sample_ready_o,
  input  wire [{{ sample_bits - 1 }}:0] sample_data_i,
  output wire pass_valid_o,
  input  wire pass_ready_i,
  output wire [31:0] pass_data_o,
  output wire status_valid_o,
  input  wire status_ready_i,
  output wire [{{ status_bits - 1 }}:0] status_data_o,
  output wire color_valid_o,
  input  wire color_ready_i,
  output wire [{{ color_bits - 1 }}:0] color_data_o,
  output wire mm_rsp_valid_o,
  input  wire mm_rsp_ready_i,
  output wire [{{ mm_rsp_bits - 1 }}:0] mm_rsp_data_o,
{%- for r in reqs %}{% if r.host %}
  input  wire {{ r.name }}_req_valid_i,
  output wire {{ r.name }}_req_ready_o,
  input  wire [{{ r.req_bits - 1 }}:0] {{ r.name }}_req_data_i,
{%- if r.writes %}
  input  wire {{ r.name }}_wdata_valid_i,
  output wire {{ r.name }}_wdata_ready_o,
  input  wire [{{ wbeat_bits - 1 }}:0] {{ r.name }}_wdata_data_i,
{%- endif %}
{%- if r.reads %}
  output wire {{ r.name }}_rdata_valid_o,
  input  wire {{ r.name }}_rdata_ready_i,
  output wire [{{ data_bits - 1 }}:0] {{ r.name }}_rdata_data_o,
{%- endif %}
{%- endif %}{% endfor %}
  output wire mem_req_valid_o,
  input  wire mem_req_ready_i,
  output wire [31:0] mem_req_addr_o,
  output wire [{{ len_bits - 1 }}:0] mem_req_len_o,
  output wire mem_req_write_o,
  output wire [{{ id_bits - 1 }}:0] mem_req_id_o,
  output wire mem_wdata_valid_o,
  input  wire mem_wdata_ready_i,
  output wire [{{ wbeat_bits - 1 }}:0] mem_wdata_data_o,
  input  wire mem_rdata_valid_i,
  output wire mem_rdata_ready_o,
  input  wire [{{ data_bits - 1 }}:0] mem_rdata_data_i
);

  // ---------------------------------------------------------------------------------
  // The arbiter's requester ports.
{%- for r in reqs %}
  wire arb_{{ r.name }}_req_valid;
  wire arb_{{ r.name }}_req_ready;
  wire [{{ r.req_bits - 1 }}:0] arb_{{ r.name }}_req_data;
{%- if r.writes %}
  wire arb_{{ r.name }}_wdata_valid;
  wire arb_{{ r.name }}_wdata_ready;
  wire [{{ wbeat_bits - 1 }}:0] arb_{{ r.name }}_wdata_data;
{%- endif %}
{%- if r.reads %}
  wire arb_{{ r.name }}_rdata_valid;
  wire arb_{{ r.name }}_rdata_ready;
  wire [{{ data_bits - 1 }}:0] arb_{{ r.name }}_rdata_data;
{%- endif %}
{%- endfor %}

  // ---------------------------------------------------------------------------------
  // The image processing unit, the router behind it and the memory manager.
  wire ipass_valid;
  wire ipass_ready;
  wire [31:0] ipass_data;
  wire mm_req_valid;
  wire mm_req_ready;
  wire rtmu_valid;
  wire rtmu_ready;
  wire [{{ sample_bits - 1 }}:0] rtmu_data;
  wire [{{ mm_req_bits - 1 }}:0] mm_req_data;
  wire dma_req_valid;
  wire dma_req_ready;
  wire [31:0] dma_req_data;
  wire dma_valid;
  wire dma_ready;
  wire [{{ dma_bits - 1 }}:0] dma_data;
  wire pix_valid;
  wire pix_ready;
  wire [{{ pix_bits - 1 }}:0] pix_data;
{%- if framebuffer %}
  wire fb_valid;
  wire fb_ready;
  wire [127:0] fb_data;
  wire fb_req_valid;
  wire fb_req_ready;
  wire [63:0] fb_req_data;
  wire dma_out_valid;
  wire dma_out_ready;
  wire [{{ dma_bits - 1 }}:0] dma_out_data;
  wire tex_valid;
  wire tex_ready;
  wire [{{ tex_bits - 1 }}:0] tex_data;
{%- endif %}

  {{ ipu }} u_ipu (
    .clk_i          (clk_i),
    .{{ rst.port }}{{ rst_pad_long }}({{ rst.port }}),
    .cmd_valid_i    (cmd_valid_i),
    .cmd_ready_o    (cmd_ready_o),
    .cmd_data_i     (cmd_data_i),
    .dma_valid_i    (dma_valid),
    .dma_ready_o    (dma_ready),
    .dma_data_i     (dma_data),
    .pass_valid_o   (ipass_valid),
    .pass_ready_i   (ipass_ready),
    .pass_data_o    (ipass_data),
    .dma_req_valid_o(dma_req_valid),
    .dma_req_ready_i(dma_req_ready),
    .dma_req_data_o (dma_req_data),
    .pix_valid_o    (pix_valid),
    .pix_ready_i    (pix_ready),
    .pix_data_o     (pix_data),
    .status_valid_o (status_valid_o),
    .status_ready_i (status_ready_i),
{%- if framebuffer %}
    .status_data_o  (status_data_o),
    .fb_valid_i     (fb_valid),
    .fb_ready_o     (fb_ready),
    .fb_data_i      (fb_data),
    .fb_req_valid_o (fb_req_valid),
    .fb_req_ready_i (fb_req_ready),
    .fb_req_data_o  (fb_req_data),
    .dma_out_valid_o(dma_out_valid),
    .dma_out_ready_i(dma_out_ready),
    .dma_out_data_o (dma_out_data),
    .tex_valid_o    (tex_valid),
    .tex_ready_i    (tex_ready),
    .tex_data_o     (tex_data)
{%- else %}
    .status_data_o  (status_data_o)
{%- endif %}
  );

  {{ route }} #(
    .RegW({{ route_reg_bits }}),
    .TexW({{ route_tex_bits }})
  ) u_route (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst_pad_route }}({{ rst.port }}),
    .in_valid_i  (ipass_valid),
    .in_ready_o  (ipass_ready),
    .in_data_i   (ipass_data),
    .pass_valid_o(pass_valid_o),
    .pass_ready_i(pass_ready_i),
    .pass_data_o (pass_data_o),
    .mm_valid_o  (mm_req_valid),
    .mm_ready_i  (mm_req_ready),
    .mm_data_o   (mm_req_data),
    .tmu_valid_o (rtmu_valid),
    .tmu_ready_i (rtmu_ready),
    .tmu_data_o  (rtmu_data)
  );

  {{ mm }} u_mm (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst_pad_mm }}({{ rst.port }}),
    .req_valid_i(mm_req_valid),
    .req_ready_o(mm_req_ready),
    .req_data_i (mm_req_data),
    .rsp_valid_o(mm_rsp_valid_o),
    .rsp_ready_i(mm_rsp_ready_i),
    .rsp_data_o (mm_rsp_data_o)
  );

  // ---------------------------------------------------------------------------------
  // The DMA engine (requester {{ dma_req }}).
  {{ dma }} #(
    .BufDepth(DmaBufDepth)
  ) u_dma (
    .clk_i            (clk_i),
    .{{ rst.port }}{{ rst_pad_long }}  ({{ rst.port }}),
    .req_valid_i      (dma_req_valid),
    .req_ready_o      (dma_req_ready),
    .req_data_i       (dma_req_data),
    .dma_valid_o      (dma_valid),
    .dma_ready_i      (dma_ready),
    .dma_data_o       (dma_data),
{%- if framebuffer %}
    .out_valid_i      (dma_out_valid),
    .out_ready_o      (dma_out_ready),
    .out_data_i       (dma_out_data),
{%- endif %}
    .mem_req_valid_o  (arb_{{ dma_req }}_req_valid),
    .mem_req_ready_i  (arb_{{ dma_req }}_req_ready),
    .mem_req_data_o   (arb_{{ dma_req }}_req_data),
{%- if framebuffer %}
    .mem_wdata_valid_o(arb_{{ dma_req }}_wdata_valid),
    .mem_wdata_ready_i(arb_{{ dma_req }}_wdata_ready),
    .mem_wdata_data_o (arb_{{ dma_req }}_wdata_data),
{%- endif %}
    .mem_rdata_valid_i(arb_{{ dma_req }}_rdata_valid),
    .mem_rdata_ready_o(arb_{{ dma_req }}_rdata_ready),
    .mem_rdata_data_i (arb_{{ dma_req }}_rdata_data)
  );

  // ---------------------------------------------------------------------------------
  // The framebuffer engine (requester {{ fb_req }}).
  {{ fb }} #(
{%- if framebuffer %}
    .BufDepth(FbBufDepth),
{%- endif %}
    .WFifoDepth(2)
  ) u_fb (
    .clk_i            (clk_i),
    .{{ rst.port }}{{ rst_pad_long }}  ({{ rst.port }}),
    .pix_valid_i      (pix_valid),
    .pix_ready_o      (pix_ready),
    .pix_data_i       (pix_data),
{%- if tex_shared %}
    .tex_valid_i      (tex_valid),
    .tex_ready_o      (tex_ready),
    .tex_data_i       (tex_data),
{%- endif %}
{%- if framebuffer %}
    .fb_req_valid_i   (fb_req_valid),
    .fb_req_ready_o   (fb_req_ready),
    .fb_req_data_i    (fb_req_data),
    .fb_valid_o       (fb_valid),
    .fb_ready_i       (fb_ready),
    .fb_data_o        (fb_data),
{%- endif %}
    .mem_req_valid_o  (arb_{{ fb_req }}_req_valid),
    .mem_req_ready_i  (arb_{{ fb_req }}_req_ready),
    .mem_req_data_o   (arb_{{ fb_req }}_req_data),
    .mem_wdata_valid_o(arb_{{ fb_req }}_wdata_valid),
    .mem_wdata_ready_i(arb_{{ fb_req }}_wdata_ready),
{%- if framebuffer %}
    .mem_wdata_data_o (arb_{{ fb_req }}_wdata_data),
    .mem_rdata_valid_i(arb_{{ fb_req }}_rdata_valid),
    .mem_rdata_ready_o(arb_{{ fb_req }}_rdata_ready),
    .mem_rdata_data_i (arb_{{ fb_req }}_rdata_data)
{%- else %}
    .mem_wdata_data_o (arb_{{ fb_req }}_wdata_data)
{%- endif %}
  );
{%- if !texw.is_empty() %}

  // ---------------------------------------------------------------------------------
  // The texture writer (requester {{ texw_req }}).
  {{ texw }} u_texw (
    .clk_i            (clk_i),
    .{{ rst.port }}{{ rst_pad_long }}  ({{ rst.port }}),
    .tex_valid_i      (tex_valid),
    .tex_ready_o      (tex_ready),
    .tex_data_i       (tex_data),
    .mem_req_valid_o  (arb_{{ texw_req }}_req_valid),
    .mem_req_ready_i  (arb_{{ texw_req }}_req_ready),
    .mem_req_data_o   (arb_{{ texw_req }}_req_data),
    .mem_wdata_valid_o(arb_{{ texw_req }}_wdata_valid),
    .mem_wdata_ready_i(arb_{{ texw_req }}_wdata_ready),
    .mem_wdata_data_o (arb_{{ texw_req }}_wdata_data)
  );
{%- endif %}

  // ---------------------------------------------------------------------------------
  // The texture mapping unit; its cache's line fills ({{ fill_beats }} beat(s) each) are requester
  // {{ fill_req }}'s bursts{% if !fill.is_empty() %}, split by {{ fill }}{% endif %}.
  wire tmu_mem_req_valid;
  wire tmu_mem_req_ready;
  wire [31:0] tmu_mem_req_addr;
  wire tmu_req_ready;

  // The router's descriptor writes go ahead of the sample port's requests.
  assign rtmu_ready     = tmu_req_ready;
  assign sample_ready_o = tmu_req_ready & ~rtmu_valid;

  {{ tmu }} u_tmu (
    .clk_i          (clk_i),
    .{{ rst.port }}{{ rst_pad_long }}({{ rst.port }}),
    .req_valid_i    (rtmu_valid | sample_valid_i),
    .req_ready_o    (tmu_req_ready),
    .req_data_i     (rtmu_valid ? rtmu_data : sample_data_i),
    .rsp_valid_o    (color_valid_o),
    .rsp_ready_i    (color_ready_i),
    .rsp_data_o     (color_data_o),
    .mem_req_valid_o(tmu_mem_req_valid),
    .mem_req_ready_i(tmu_mem_req_ready),
    .mem_req_addr_o (tmu_mem_req_addr),
    .mem_rsp_valid_i(arb_{{ fill_req }}_rdata_valid),
    .mem_rsp_ready_o(arb_{{ fill_req }}_rdata_ready),
    .mem_rsp_data_i (arb_{{ fill_req }}_rdata_data)
  );

{%- if fill.is_empty() %}
  assign arb_{{ fill_req }}_req_valid = tmu_mem_req_valid;
  assign tmu_mem_req_ready = arb_{{ fill_req }}_req_ready;
  assign arb_{{ fill_req }}_req_data  = { {{- fill_len -}}, tmu_mem_req_addr};
{%- else %}

  {{ fill }} #(
    .Bursts({{ fill_bursts }}),
    .BurstBytes({{ fill_burst_bytes }})
  ) u_fill (
    .clk_i          (clk_i),
    .{{ rst.port }}{{ rst_pad_long }}({{ rst.port }}),
    .req_valid_i    (tmu_mem_req_valid),
    .req_ready_o    (tmu_mem_req_ready),
    .req_addr_i     (tmu_mem_req_addr),
    .mem_req_valid_o(arb_{{ fill_req }}_req_valid),
    .mem_req_ready_i(arb_{{ fill_req }}_req_ready),
    .mem_req_data_o (arb_{{ fill_req }}_req_data)
  );
{%- endif %}
{%- for r in reqs %}{% if r.host %}

  // Host requester {{ r.name }}: the top's ports.
  assign arb_{{ r.name }}_req_valid   = {{ r.name }}_req_valid_i;
  assign {{ r.name }}_req_ready_o = arb_{{ r.name }}_req_ready;
  assign arb_{{ r.name }}_req_data    = {{ r.name }}_req_data_i;
{%- if r.writes %}
  assign arb_{{ r.name }}_wdata_valid   = {{ r.name }}_wdata_valid_i;
  assign {{ r.name }}_wdata_ready_o = arb_{{ r.name }}_wdata_ready;
  assign arb_{{ r.name }}_wdata_data    = {{ r.name }}_wdata_data_i;
{%- endif %}
{%- if r.reads %}
  assign {{ r.name }}_rdata_valid_o = arb_{{ r.name }}_rdata_valid;
  assign arb_{{ r.name }}_rdata_ready   = {{ r.name }}_rdata_ready_i;
  assign {{ r.name }}_rdata_data_o  = arb_{{ r.name }}_rdata_data;
{%- endif %}
{%- endif %}{% endfor %}

  // ---------------------------------------------------------------------------------
  // The memory arbiter.
  {{ arb }} u_arb (
    .clk_i(clk_i),
    .{{ rst.port }}({{ rst.port }}),
{%- for r in reqs %}
    .{{ r.name }}_req_valid_i(arb_{{ r.name }}_req_valid),
    .{{ r.name }}_req_ready_o(arb_{{ r.name }}_req_ready),
    .{{ r.name }}_req_data_i(arb_{{ r.name }}_req_data),
{%- if r.writes %}
    .{{ r.name }}_wdata_valid_i(arb_{{ r.name }}_wdata_valid),
    .{{ r.name }}_wdata_ready_o(arb_{{ r.name }}_wdata_ready),
    .{{ r.name }}_wdata_data_i(arb_{{ r.name }}_wdata_data),
{%- endif %}
{%- if r.reads %}
    .{{ r.name }}_rdata_valid_o(arb_{{ r.name }}_rdata_valid),
    .{{ r.name }}_rdata_ready_i(arb_{{ r.name }}_rdata_ready),
    .{{ r.name }}_rdata_data_o(arb_{{ r.name }}_rdata_data),
{%- endif %}
{%- endfor %}
    .mem_req_valid_o(mem_req_valid_o),
    .mem_req_ready_i(mem_req_ready_i),
    .mem_req_addr_o(mem_req_addr_o),
    .mem_req_len_o(mem_req_len_o),
    .mem_req_write_o(mem_req_write_o),
    .mem_req_id_o(mem_req_id_o),
    .mem_wdata_valid_o(mem_wdata_valid_o),
    .mem_wdata_ready_i(mem_wdata_ready_i),
    .mem_wdata_data_o(mem_wdata_data_o),
    .mem_rdata_valid_i(mem_rdata_valid_i),
    .mem_rdata_ready_o(mem_rdata_ready_o),
    .mem_rdata_data_i(mem_rdata_data_i)
  );

endmodule
