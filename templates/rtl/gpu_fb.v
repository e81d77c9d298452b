{{ stamp }}
// {{ name }}: the GPU's framebuffer engine, requester "{{ requester }}" of the memory arbiter.
//
// The framebuffer: {{ fb_width }} x {{ fb_height }} RGBA8 pixels at {{ fb_base_hex }} (the image area's
// destination slot), pixel (x, y) at byte fb + 4 * (y * {{ fb_width }} + x), row 0 the bottom.
// Pixels: each of a pix beat's {{ lanes }} lane(s) (mask bit set) is a one-beat write whose byte
// enables select its 4 bytes, one lane a clock; a pixel outside the framebuffer is
// dropped (GL's pixel ownership test).
{%- if reads %}
// Regions: an fb_req {height, width, y, x} is read row by row from pixel (x, y + j):
// each row's beats in bursts of up to {{ burst }} beat(s) that do not cross a {{ burst }}-beat
// boundary (a row past the framebuffer's right edge runs on into the next row, and
// addresses wrap at the framebuffer's end), against the credit of a buffer of {{ buf_depth }}
// beats ({{ rbuf }}); the row's pixels leave on fb as 128-bit words of 4, pixel i of the row
// in word i / 4, lane i % 4 (a row's last word partly filled), one pixel slot of a beat a
// clock.
// A region is taken only when no pixel is held here, so its reads go to memory after the
// writes of every pixel before it (the arbiter keeps a requester's bursts in order); it
// starts the clock after.
{%- endif %}
{%- if tex %}
// Texture words: COPY_TEX_IMAGE's writes {address, word} (address in {{ word_bits }}-bit words) land
// at byte {{ tex_base_hex }} + {{ word_bytes }} * address (the texture area), each a one-beat write of
// the word's bytes; a word at or past {{ tex_words }} words (the area's end) is dropped. No
// requester serves "ipu.tex" on its own, so they share this one's port.
{%- endif %}
// Requests pass through a skid register (hs_skid) and write beats through a two-entry
// FIFO (hs_fifo), pushed as their request is; pixels go first, then {% if tex %}texture words, then {% endif %}region reads.
// Pixels{% if tex %} and texture words{% endif %} come in{% if reads %}, and region words go out,{% endif %} through skid registers
// too, so the IPU's handshakes with this engine start and end at flops.
// Combinational paths: pix_valid_i -> fb_req_ready_o (the fence). Every other output
// comes from flops or the buffer's head.
module {{ name }} #(
{%- if reads %}
  // Read buffer beats: free to override (a power of two, at least two bursts).
  parameter integer BufDepth = {{ buf_depth }},
{%- endif %}
  // Write beats queued behind their requests: free to override (at least 2).
  parameter integer WFifoDepth = 2
) (
  input  wire clk_i,
  input  wire {{ rst.port }},
  input  wire pix_valid_i,
  output wire pix_ready_o,
  input  wire [{{ pix_bits - 1 }}:0] pix_data_i,
{%- if tex %}
  input  wire tex_valid_i,
  output wire tex_ready_o,
  input  wire [{{ tex_bits - 1 }}:0] tex_data_i,
{%- endif %}
{%- if reads %}
  input  wire fb_req_valid_i,
  output wire fb_req_ready_o,
  input  wire [63:0] fb_req_data_i,
  output wire fb_valid_o,
  input  wire fb_ready_i,
  output wire [127:0] fb_data_o,
{%- endif %}
  output wire mem_req_valid_o,
  input  wire mem_req_ready_i,
  output wire [{{ req_bits - 1 }}:0] mem_req_data_o,
  output wire mem_wdata_valid_o,
  input  wire mem_wdata_ready_i,
{%- if reads %}
  output wire [{{ wbeat_bits - 1 }}:0] mem_wdata_data_o,
  input  wire mem_rdata_valid_i,
  output wire mem_rdata_ready_o,
  input  wire [{{ data_bits - 1 }}:0] mem_rdata_data_i
{%- else %}
  output wire [{{ wbeat_bits - 1 }}:0] mem_wdata_data_o
{%- endif %}
);

  localparam integer ReqW      = {{ req_bits }};
  localparam integer LenW      = {{ len_bits }};
  localparam integer WBeatW    = {{ wbeat_bits }};
  localparam integer StrbW     = {{ strb_bits }};
  localparam integer PixW      = {{ pix_bits }};
  localparam integer WBits     = {{ fb_width_bits }};   // log2 of the width
  localparam integer HBits     = {{ fb_height_bits }};  // log2 of the height
  localparam [31:0]  FbBase    = {{ fb_base_hex }};
  localparam integer BeatShift = {{ beat_shift }};
  // pix beat fields.
{%- for f in pix_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  // Request word fields (the arbiter's request layout).
{%- for f in req_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
{%- if lanes > 1 %}
  localparam integer LaneW     = {{ lane_bits }};
  localparam [LaneW-1:0] LastLane = {{ lanes - 1 }};
{%- endif %}
{%- if ppb > 1 %}
  localparam integer PpbW      = {{ ppb_bits }};  // a pixel's index in a beat
{%- endif %}

  wire skid_ready;
  wire wfifo_ready;

  // ---------------------------------------------------------------------------------
  // Pixels: a skid register at the port (its ready is a flop, so the IPU's output stage
  // does not wait on this engine's write decision), then the pix beat held, and its next
  // lane.
  wire            pin_valid;
  wire            pin_ready;
  wire [PixW-1:0] pin_data;

  {{ skid }} #(
    .Width(PixW)
  ) u_pix_skid (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (pix_valid_i),
    .in_ready_o (pix_ready_o),
    .in_data_i  (pix_data_i),
    .out_valid_o(pin_valid),
    .out_ready_i(pin_ready),
    .out_data_o (pin_data)
  );

  reg             pv_q;
  reg [PixW-1:0]  pb_q;
{%- if lanes > 1 %}
  reg [LaneW-1:0] plane_q;
  wire [15:0] px = pb_q[PixXLsb +: 16] + { {(16 - LaneW){1'b0}}, plane_q};
  wire [{{ lanes - 1 }}:0] pmasks = pb_q[PixMaskLsb +: {{ lanes }}];
  wire [{{ 32 * lanes - 1 }}:0] pitems = pb_q[PixItemsLsb +: {{ 32 * lanes }}];
  wire        pmask = pmasks[plane_q];
  wire [31:0] pword = pitems[32 * plane_q +: 32];
  wire        plast = plane_q == LastLane;
{%- else %}
  wire [15:0] px = pb_q[PixXLsb +: 16];
  wire        pmask = 1'b1;
  wire [31:0] pword = pb_q[PixItemsLsb +: 32];
  wire        plast = 1'b1;
{%- endif %}
  wire [15:0] py = pb_q[PixYLsb +: 16];
  wire        pin = (px[15:WBits] == 0) && (py[15:HBits] == 0);
  wire        pwrite = pv_q & pmask & pin;
  // This clock's lane is done: written, or nothing to write.
  wire        pstep = pv_q & (~pwrite | (skid_ready & wfifo_ready));
  wire        pgo = pwrite & skid_ready & wfifo_ready;
  assign pin_ready = ~pv_q | (pstep & plast);
  // FbBase is beat-aligned: the pixel's beat is FbBase's plus the index's high bits.
  wire [WBits+HBits-1:0] pidx = {py[HBits-1:0], px[WBits-1:0]};
  wire [31-BeatShift:0] pbeat_addr = FbBase[31:BeatShift] + {{ pidx_beat }};
  wire [ReqW-1:0] wr_req;
  assign wr_req[ReqAddrLsb +: 32]  = {pbeat_addr, {BeatShift{1'b0}}};
  assign wr_req[ReqLenLsb +: LenW] = {LenW{1'b0}};
{%- if reads %}
  assign wr_req[ReqWriteLsb]       = 1'b1;
{%- endif %}
{%- if ppb > 1 %}
  wire [StrbW-1:0] pstrb = { {(StrbW - 4){1'b0}}, 4'hf} << (4 * pidx[PpbW-1:0]);
{%- else %}
  wire [StrbW-1:0] pstrb = 4'hf;
{%- endif %}
  wire [WBeatW-1:0] pbeat = {pstrb, { {{- ppb -}} {pword}}};
{%- if tex %}

  // ---------------------------------------------------------------------------------
  // Texture words, when no pixel is written.
  localparam integer WordW    = {{ word_bits }};
  localparam [31:0]  TexBase  = {{ tex_base_hex }};
  localparam [31:0]  TexWords = {{ tex_words_hex }};
  // The words come in through a skid register (its ready is a flop, so the IPU's packer
  // does not wait on this engine's pixel decision).
  wire        tin_valid;
  wire        tin_ready;
  wire [{{ tex_bits - 1 }}:0] tin_data;

  {{ skid }} #(
    .Width({{ tex_bits }})
  ) u_tex_skid (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (tex_valid_i),
    .in_ready_o (tex_ready_o),
    .in_data_i  (tex_data_i),
    .out_valid_o(tin_valid),
    .out_ready_i(tin_ready),
    .out_data_o (tin_data)
  );

  wire [31:0] twaddr = tin_data[WordW +: 32];
  wire [WordW-1:0] tword = tin_data[WordW-1:0];
  wire        twrite = tin_valid & (twaddr < TexWords);
  wire        tgo = twrite & ~pwrite & skid_ready & wfifo_ready;
  // Words past the area are taken and dropped.
  assign tin_ready = ~pwrite & skid_ready & wfifo_ready;
  // TexBase is beat-aligned: the word's beat is TexBase's plus the address's high bits.
  wire [31-BeatShift:0] tbeat_addr = TexBase[31:BeatShift] + {{ twaddr_beat }};
  wire [ReqW-1:0] tex_req;
  assign tex_req[ReqAddrLsb +: 32]  = {tbeat_addr, {BeatShift{1'b0}}};
  assign tex_req[ReqLenLsb +: LenW] = {LenW{1'b0}};
{%- if reads %}
  assign tex_req[ReqWriteLsb]       = 1'b1;
{%- endif %}
{%- if tex_wpb > 1 %}
  wire [StrbW-1:0] tstrb = {{ word_strb }} << ({{ word_bytes }} * twaddr[{{ tex_wpb_bits - 1 }}:0]);
{%- else %}
  wire [StrbW-1:0] tstrb = {{ word_strb }};
{%- endif %}
  wire [WBeatW-1:0] tbeat = {tstrb, { {{- tex_wpb -}} {tword}}};
{%- endif %}

  {{ fifo }} #(
    .Width(WBeatW),
    .Depth(WFifoDepth)
  ) u_wbeat_fifo (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
{%- if tex %}
    .in_valid_i (pgo | tgo),
    .in_ready_o (wfifo_ready),
    .in_data_i  (pwrite ? pbeat : tbeat),
{%- else %}
    .in_valid_i (pgo),
    .in_ready_o (wfifo_ready),
    .in_data_i  (pbeat),
{%- endif %}
    .out_valid_o(mem_wdata_valid_o),
    .out_ready_i(mem_wdata_ready_i),
    .out_data_o (mem_wdata_data_o)
  );

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      pv_q <= 1'b0;
{%- if lanes > 1 %}
      plane_q <= {LaneW{1'b0}};
{%- endif %}
    end else begin
      if (pin_ready) begin
        pv_q <= pin_valid;
{%- if lanes > 1 %}
        plane_q <= {LaneW{1'b0}};
      end else if (pstep) begin
        plane_q <= plane_q + 1'b1;
{%- endif %}
      end
    end
  end

  always @(posedge clk_i) begin
    if (pin_ready) begin
      pb_q <= pin_data;
    end
  end
{%- if reads %}

  // ---------------------------------------------------------------------------------
  // Regions: the issue side walks the rows' beats; the data side their pixel slots.
  localparam integer DataW     = {{ data_bits }};
  // Credits and a burst's beats: wide enough for both.
  localparam integer CntW      = ($clog2(BufDepth + 1) > LenW + 1) ? $clog2(BufDepth + 1) : LenW + 1;
  localparam integer FbBeatW   = {{ fb_beat_bits }};  // beats in the framebuffer, log2
  localparam [FbBeatW-1:0] RowBeats = {{ row_beats }};  // beats a framebuffer row
{%- if burst > 1 %}
  localparam integer BurstW    = {{ burst_bits }};
  localparam [CntW-1:0] Burst  = {{ burst }};
{%- endif %}

  reg         rv_q;       // a region is being read
  reg  [15:0] rw_q;       // its width
  reg  [16:0] slots_q;    // pixel slots of a row's beats, less one
{%- if ppb > 1 %}
  reg  [PpbW-1:0] skip_q;  // slots before a row's first pixel
{%- endif %}
  // Issue side.
  reg  [15:0] irows_q;    // rows with beats left to request
  reg  [FbBeatW-1:0] row_beat_q;  // the current row's first beat
  reg  [FbBeatW-1:0] rb_q;        // its next beat to request
  reg  [16:0] left_q;     // its beats left to request
  reg  [16:0] nb_q;       // beats a row
  wire [CntW-1:0] credit;  // buffer entries neither full nor promised to a read
  // Data side.
  reg  [15:0] drows_q;    // rows with pixels left to deliver
  reg  [16:0] pos_q;      // the slot in the row
  reg  [1:0]  olane_q;    // the output word's next lane
  reg         ov_q;       // the output word is complete
  reg  [127:0] out_q;
  // The row's pixels not yet sent, counted down from its width, and whether that is
  // not zero or one, so that a slot's pixel and the output word's end read flops (not a
  // subtract and two compares against the width).
  reg  [15:0] pleft_q;
  reg         pleft_nz_q;
  reg         pleft_one_q;
  reg         rw_one_q;   // the region's width is one
{%- if ppb > 1 %}
  // The slots before the row's first pixel, counted down from skip_q, and whether none.
  reg  [PpbW-1:0] pre_q;
  reg         pre_zero_q;
  reg         skip_zero_q;
{%- endif %}

  // A region request is taken into rq_q when the fence allows (as it would start) and
  // starts a clock later, from there (rtake), so the request's handshake with the IPU's
  // decoder and the loads of the region's counts meet at flops. A request with no
  // width or no height is taken and starts nothing.
  reg         rtake;      // rq_q holds a region that starts this clock
  reg  [63:0] rq_q;
  wire        racc = fb_req_valid_i & fb_req_ready_o;
  // The index wraps at the framebuffer's end: x's and y's bits above it are dropped.
  /* verilator lint_off UNUSEDSIGNAL */
  wire [15:0] qx = rq_q[15:0];
  wire [15:0] qy = rq_q[31:16];
  /* verilator lint_on UNUSEDSIGNAL */
  wire [15:0] qw = rq_q[47:32];
  wire [15:0] qh = rq_q[63:48];
  assign fb_req_ready_o = ~rv_q & ~rtake & ~pv_q & ~pin_valid & ~pix_valid_i;

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      rtake <= 1'b0;
    end else begin
      rtake <= racc & (fb_req_data_i[47:32] != 16'd0) & (fb_req_data_i[63:48] != 16'd0);
    end
  end

  always @(posedge clk_i) begin
    if (racc) begin
      rq_q <= fb_req_data_i;
    end
  end
  // The region's first pixel and beat (addresses wrap at the framebuffer's end).
  wire [WBits+HBits-1:0] qpix = {qy[HBits-1:0], {WBits{1'b0}}} + {{ qx_to_pix }};
{%- if ppb > 1 %}
  wire [16:0] qnb = ({1'b0, qw} + { {(17 - PpbW){1'b0}}, qx[PpbW-1:0]} - 17'd1) >> PpbW;
{%- else %}
  wire [16:0] qnb = {1'b0, qw} - 17'd1;
{%- endif %}

  wire [CntW-1:0] rd_beats;
  // The burst's beats at their own width (at most a burst): what the pointers add.
  wire [{{ burst_bits }}:0] rd_n = rd_beats[{{ burst_bits }}:0];
{%- if burst > 1 %}
  // The room to the burst boundary, whether more than a burst is left of the row and
  // whether rows are left, worked out a clock behind the counts (as the DMA engine's), so
  // a burst's size and the row's end are compares of BurstW + 1 bits from flops. They are
  // not read the clock after the counts change (fresh_q low): a burst goes out at most
  // every other clock, and each of its beats takes the data side two slots or more.
  reg [CntW-1:0] room_q;
  reg left_over_q;  // left_q > Burst
  reg irows_nz_q;   // irows_q != 0
  reg fresh_q;
  wire few = ~left_over_q & (left_q[BurstW:0] < room_q[BurstW:0]);
  assign rd_beats = few ? left_q[CntW-1:0] : room_q;
  wire rd_go = fresh_q & rv_q & irows_nz_q & (credit >= rd_beats) & ~pwrite{% if tex %} & ~twrite{% endif %} & skid_ready;
  wire row_done = ~left_over_q & (left_q[BurstW:0] <= room_q[BurstW:0]);
{%- else %}
  assign rd_beats = {{ "{" }}{(CntW - 1){1'b0}}, 1'b1};
  wire rd_go = rv_q & (irows_q != 16'd0) & (credit >= rd_beats) & ~pwrite{% if tex %} & ~twrite{% endif %} & skid_ready;
  wire row_done = left_q == { {(17 - CntW){1'b0}}, rd_beats};
{%- endif %}
  wire [LenW-1:0] rd_len = rd_beats[LenW-1:0] - 1'b1;
  wire [31-BeatShift:0] rd_beat_addr = FbBase[31:BeatShift] + {{ rb_to_addr }};
  wire [31:0] rd_addr = {rd_beat_addr, {BeatShift{1'b0}}};
  wire [ReqW-1:0] rd_req;
  assign rd_req[ReqAddrLsb +: 32]  = rd_addr;
  assign rd_req[ReqLenLsb +: LenW] = rd_len;
  assign rd_req[ReqWriteLsb]       = 1'b0;

  wire buf_valid;
  wire buf_pop;
  wire [DataW-1:0] buf_data;

  {{ rbuf }} #(
    .Width(DataW),
    .Depth(BufDepth),
    .CntW (CntW)
  ) u_rbuf (
    .clk_i        (clk_i),
    .{{ rst.port }}{{ rbuf_pad }}({{ rst.port }}),
    .issue_i      (rd_go),
    .issue_beats_i(rd_beats),
    .credit_o     (credit),
    .in_valid_i   (mem_rdata_valid_i),
    .in_ready_o   (mem_rdata_ready_o),
    .in_data_i    (mem_rdata_data_i),
    .out_valid_o  (buf_valid),
    .out_ready_i  (buf_pop),
    .out_data_o   (buf_data)
  );

  // The output word leaves through a skid register (its ready is a flop, so the IPU's
  // ready does not reach the slots' decisions).
  wire fbo_ready;

  {{ skid }} #(
    .Width(128)
  ) u_fb_skid (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (ov_q),
    .in_ready_o (fbo_ready),
    .in_data_i  (out_q),
    .out_valid_o(fb_valid_o),
    .out_ready_i(fb_ready_i),
    .out_data_o (fb_data_o)
  );

  // A slot moves when the buffer has its beat and the output word is free or leaving.
  wire slot = buf_valid & (~ov_q | fbo_ready);
{%- if ppb > 1 %}
  wire [PpbW-1:0] t = pos_q[PpbW-1:0];
  wire [31:0] spix = buf_data[32 * t +: 32];
  assign buf_pop = slot & (t == {PpbW{1'b1}});
  // Pixel pos_q - skip_q of the row is in this slot, if the row has it.
  wire emit = slot & pre_zero_q & pleft_nz_q;
{%- else %}
  wire [31:0] spix = buf_data;
  assign buf_pop = slot;
  wire emit = slot & pleft_nz_q;
{%- endif %}
  wire wlast = emit & ((olane_q == 2'd3) | pleft_one_q);
  wire rowend = slot & (pos_q == slots_q);

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      rv_q       <= 1'b0;
      irows_q    <= 16'd0;
{%- if burst > 1 %}
      fresh_q    <= 1'b0;
{%- endif %}
      drows_q    <= 16'd0;
      pos_q      <= 17'd0;
      olane_q    <= 2'd0;
      ov_q       <= 1'b0;
    end else begin
      if (rtake) begin
        rv_q    <= 1'b1;
        irows_q <= qh;
        drows_q <= qh;
      end
      if (rd_go && row_done) begin
        irows_q <= irows_q - 16'd1;
      end
{%- if burst > 1 %}
      fresh_q <= ~rtake & ~rd_go;
{%- endif %}
      if (slot) begin
        pos_q <= rowend ? 17'd0 : pos_q + 17'd1;
      end
      if (emit) begin
        olane_q <= wlast ? 2'd0 : olane_q + 2'd1;
      end
      if (wlast) begin
        ov_q <= 1'b1;
      end else if (fbo_ready) begin
        ov_q <= 1'b0;
      end
      if (rowend) begin
        drows_q <= drows_q - 16'd1;
        if (drows_q == 16'd1) begin
          rv_q <= 1'b0;
        end
      end
    end
  end

  // The row's counts start over with each region and each row (a region has a width:
  // rtake needs it).
  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      pleft_nz_q  <= 1'b0;
      pleft_one_q <= 1'b0;
{%- if ppb > 1 %}
      pre_zero_q  <= 1'b1;
{%- endif %}
    end else if (rtake) begin
      pleft_nz_q  <= 1'b1;
      pleft_one_q <= (qw == 16'd1);
{%- if ppb > 1 %}
      pre_zero_q  <= (qpix[PpbW-1:0] == {PpbW{1'b0}});
{%- endif %}
    end else if (rowend) begin
      pleft_nz_q  <= 1'b1;
      pleft_one_q <= rw_one_q;
{%- if ppb > 1 %}
      pre_zero_q  <= skip_zero_q;
{%- endif %}
    end else begin
      if (emit) begin
        pleft_nz_q  <= ~pleft_one_q;
        pleft_one_q <= (pleft_q == 16'd2);
      end
{%- if ppb > 1 %}
      if (slot & ~pre_zero_q) begin
        pre_zero_q <= (pre_q == {{ "{{" }}(PpbW-1){1'b0}}, 1'b1});
      end
{%- endif %}
    end
  end

  always @(posedge clk_i) begin
    if (rtake) begin
      pleft_q     <= qw;
      rw_one_q    <= (qw == 16'd1);
{%- if ppb > 1 %}
      pre_q       <= qpix[PpbW-1:0];
      skip_zero_q <= (qpix[PpbW-1:0] == {PpbW{1'b0}});
{%- endif %}
    end else if (rowend) begin
      pleft_q     <= rw_q;
{%- if ppb > 1 %}
      pre_q       <= skip_q;
{%- endif %}
    end else begin
      if (emit) begin
        pleft_q <= pleft_q - 16'd1;
      end
{%- if ppb > 1 %}
      if (slot & ~pre_zero_q) begin
        pre_q <= pre_q - 1'b1;
      end
{%- endif %}
    end
  end

  always @(posedge clk_i) begin
    if (rtake) begin
      rw_q       <= qw;
      nb_q       <= qnb + 17'd1;
      left_q     <= qnb + 17'd1;
{%- if ppb > 1 %}
      skip_q     <= qpix[PpbW-1:0];
      slots_q    <= {qnb[16 - PpbW:0], {PpbW{1'b1}}};
      row_beat_q <= qpix[WBits+HBits-1:PpbW];
      rb_q       <= qpix[WBits+HBits-1:PpbW];
{%- else %}
      slots_q    <= qnb;
      row_beat_q <= qpix;
      rb_q       <= qpix;
{%- endif %}
    end else if (rd_go) begin
      if (row_done) begin
        row_beat_q <= row_beat_q + RowBeats;
        rb_q       <= row_beat_q + RowBeats;
        left_q     <= nb_q;
      end else begin
        rb_q   <= rb_q + {{ beats_to_fb }};
        left_q <= left_q - { {(17 - CntW){1'b0}}, rd_beats};
      end
    end
    if (emit) begin
      out_q[32 * olane_q +: 32] <= spix;
    end
{%- if burst > 1 %}
    room_q      <= Burst - { {(CntW - BurstW){1'b0}}, rb_q[BurstW-1:0]};
    left_over_q <= left_q > { {(17 - CntW){1'b0}}, Burst};
    irows_nz_q  <= irows_q != 16'd0;
{%- endif %}
  end
{%- endif %}

  // ---------------------------------------------------------------------------------
  // The request port: pixel writes first.
  {{ skid }} #(
    .Width(ReqW)
  ) u_req_skid (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
{%- if reads && tex %}
    .in_valid_i (pgo | tgo | rd_go),
    .in_ready_o (skid_ready),
    .in_data_i  (pwrite ? wr_req : twrite ? tex_req : rd_req),
{%- else if reads %}
    .in_valid_i (pgo | rd_go),
    .in_ready_o (skid_ready),
    .in_data_i  (pwrite ? wr_req : rd_req),
{%- else %}
    .in_valid_i (pgo),
    .in_ready_o (skid_ready),
    .in_data_i  (wr_req),
{%- endif %}
    .out_valid_o(mem_req_valid_o),
    .out_ready_i(mem_req_ready_i),
    .out_data_o (mem_req_data_o)
  );

endmodule
