{{ stamp }}
// {{ name }}: the GPU's DMA engine, requester "{{ requester }}" of the memory arbiter.
//
// Reads: a request on req (DMA words to send, from the IPU's dma_req) is served from a
// ring of {{ rd_ring_bytes }} bytes at {{ rd_base_hex }} (the image area's source slot): its
// ceil(words / {{ wpb }}) beats are read from the ring's next beat, in bursts of up to {{ burst }}
// beat(s) that do not cross a {{ burst }}-beat boundary, into a buffer of {{ buf_depth }} beats, and
// leave on dma as {{ dma_bits }}-bit words, word 0 of a beat first; the last beat's words past the
// request's are dropped, and the next request starts a beat.
// A burst is requested only against the buffer's credit ({{ rbuf }}), so read beats never
// wait in the arbiter and hold up another reader's.
{%- if burst > 1 %}
// Whether beats are left, and whether a whole burst is, are flags worked out from the
// count a clock behind it, so no 32-bit compare decides a burst: a burst is requested at
// most every other clock (bursts of up to {{ burst }} beats keep the port busy).
{%- endif %}
{%- if writes %}
// Writes: READ_PIXELS' words from out go to a ring of {{ wr_ring_bytes }} bytes at {{ wr_base_hex }} (the
// 2D-graphics slot), a word after the last, each as a one-beat write whose byte enables
// select the word's bytes; writes go first when both want the request port.
{%- endif %}
// Requests pass through a skid register (hs_skid) and write beats through a two-entry
// FIFO (hs_fifo), pushed as their request is; the arbiter takes a write's beat after its
// request.
// One request at a time is served, and one more waits in an input register (hs_skid): the
// IPU's word count comes through its rounding add, and the counts' sums here start from
// flops.
// Combinational paths: none between ports (the words leave through a skid register;
// mem_rdata_ready_o is the buffer's registered in_ready_o).
module {{ name }} #(
  // Read buffer beats: free to override (a power of two, at least two bursts).
  parameter integer BufDepth = {{ buf_depth }}{% if writes %},
  // Write beats queued behind their requests: free to override (at least 2).
  parameter integer WFifoDepth = 2{% endif %}
) (
  input  wire clk_i,
  input  wire {{ rst.port }},
  input  wire req_valid_i,
  output wire req_ready_o,
  input  wire [31:0] req_data_i,
  output wire dma_valid_o,
  input  wire dma_ready_i,
  output wire [{{ dma_bits - 1 }}:0] dma_data_o,
{%- if writes %}
  input  wire out_valid_i,
  output wire out_ready_o,
  input  wire [{{ dma_bits - 1 }}:0] out_data_i,
{%- endif %}
  output wire mem_req_valid_o,
  input  wire mem_req_ready_i,
  output wire [{{ req_bits - 1 }}:0] mem_req_data_o,
{%- if writes %}
  output wire mem_wdata_valid_o,
  input  wire mem_wdata_ready_i,
  output wire [{{ wbeat_bits - 1 }}:0] mem_wdata_data_o,
{%- endif %}
  input  wire mem_rdata_valid_i,
  output wire mem_rdata_ready_o,
  input  wire [{{ data_bits - 1 }}:0] mem_rdata_data_i
);

  localparam integer DataW     = {{ data_bits }};
  localparam integer ReqW      = {{ req_bits }};
  localparam integer LenW      = {{ len_bits }};
  // Credits and a burst's beats: wide enough for both.
  localparam integer CntW      = ($clog2(BufDepth + 1) > LenW + 1) ? $clog2(BufDepth + 1) : LenW + 1;
  localparam integer BeatShift = {{ beat_shift }};  // log2 of a beat's bytes
  localparam integer RingW     = {{ rd_ring_beat_bits }};  // beats in the read ring, log2
  localparam [31:0]  RdBase    = {{ rd_base_hex }};
  localparam integer DmaW      = {{ dma_bits }};
{%- if wpb > 1 %}
  localparam integer WpbW      = {{ wpb_bits }};  // a word's index in a beat
  localparam [WpbW-1:0] LastWord = {{ wpb - 1 }};
{%- endif %}
{%- if burst > 1 %}
  localparam integer BurstW    = {{ burst_bits }};  // a beat's index in an aligned burst
  localparam [CntW-1:0] Burst  = {{ burst }};
{%- endif %}
{%- if writes %}
  localparam integer WBeatW    = {{ wbeat_bits }};
  localparam integer WRingW    = {{ wr_ring_word_bits }};  // words in the write ring, log2
  localparam [31:0]  WrBase    = {{ wr_base_hex }};
{%- endif %}
  // Request word fields (the arbiter's request layout).
{%- for f in req_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}

  // ---------------------------------------------------------------------------------
  // The request being served.
  reg        busy_q;    // words of a request remain to be sent
  reg [31:0] words_q;   // its words not yet sent
  reg [31:0] beats_q;   // its beats not yet requested
  reg [RingW-1:0] rptr_q;  // the next beat to read, in the ring
  wire [CntW-1:0] credit;  // buffer entries neither full nor promised to a read

  wire        rq_valid;
  wire [31:0] rq_data;

  {{ skid }} #(
    .Width(32)
  ) u_req_in (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (req_valid_i),
    .in_ready_o (req_ready_o),
    .in_data_i  (req_data_i),
    .out_valid_o(rq_valid),
    .out_ready_i(~busy_q),
    .out_data_o (rq_data)
  );

  wire take = rq_valid & ~busy_q;

  // The next read burst: the beats left, at most up to the next burst boundary.
  wire [CntW-1:0] rd_beats;
  // The burst's beats at their own width (at most a burst): what the pointers add.
  wire [{{ burst_bits }}:0] rd_n = rd_beats[{{ burst_bits }}:0];
{%- if burst > 1 %}
  // beats_q is not zero, and is a burst or more; both from the count a clock ago, so not
  // read the clock after it changes (fresh_q low).
  reg beats_nz_q;
  reg beats_big_q;
  reg fresh_q;
  wire [CntW-1:0] room = Burst - { {(CntW - BurstW){1'b0}}, rptr_q[BurstW-1:0]};
  // Fewer beats than the room: never with a burst or more, else a compare of BurstW + 1 bits.
  wire few = ~beats_big_q & (beats_q[BurstW:0] < room[BurstW:0]);
  assign rd_beats = few ? beats_q[CntW-1:0] : room;
  wire rd_want = fresh_q & beats_nz_q & (credit >= rd_beats);
{%- else %}
  assign rd_beats = {{ "{" }}{(CntW - 1){1'b0}}, 1'b1};
  wire rd_want = (beats_q != 32'd0) && (credit >= rd_beats);
{%- endif %}
  wire [LenW-1:0] rd_len = rd_beats[LenW-1:0] - 1'b1;
  wire [31:0] rd_addr = RdBase | { {(32 - RingW - BeatShift){1'b0}}, rptr_q, {BeatShift{1'b0}} };

  // ---------------------------------------------------------------------------------
  // The request port: a write when one waits and the beat FIFO has room, else a read.
  wire skid_ready;
  wire [ReqW-1:0] rd_req;
{%- if writes %}
  wire wfifo_ready;
  wire wr_sel = out_valid_i & wfifo_ready;
  wire rd_go  = rd_want & ~wr_sel & skid_ready;
  wire wr_go  = wr_sel & skid_ready;
  reg  [WRingW-1:0] wptr_q;  // the next word of the write ring
{%- if wpb > 1 %}
  wire [31:0] wr_addr = WrBase | { {(32 - WRingW - {{ word_shift }}){1'b0}}, wptr_q[WRingW-1:WpbW], {BeatShift{1'b0}} };
{%- else %}
  wire [31:0] wr_addr = WrBase | { {(32 - WRingW - BeatShift){1'b0}}, wptr_q, {BeatShift{1'b0}} };
{%- endif %}
  wire [ReqW-1:0] wr_req;
  assign wr_req[ReqAddrLsb +: 32]  = wr_addr;
  assign wr_req[ReqLenLsb +: LenW] = {LenW{1'b0}};
  assign wr_req[ReqWriteLsb]       = 1'b1;
  assign rd_req[ReqWriteLsb]       = 1'b0;
  assign out_ready_o = wfifo_ready & skid_ready;
  // The word in every lane of the beat, its own bytes enabled.
{%- if wpb > 1 %}
  wire [WpbW-1:0] wlane = wptr_q[WpbW-1:0];
  wire [{{ strb_bits - 1 }}:0] wstrb = {{ word_strb }} << ({{ word_bytes }} * wlane);
{%- else %}
  wire [{{ strb_bits - 1 }}:0] wstrb = {{ word_strb }};
{%- endif %}
  wire [WBeatW-1:0] wbeat = {wstrb, { {{- wpb -}} {out_data_i}}};

  {{ fifo }} #(
    .Width(WBeatW),
    .Depth(WFifoDepth)
  ) u_wbeat_fifo (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (wr_go),
    .in_ready_o (wfifo_ready),
    .in_data_i  (wbeat),
    .out_valid_o(mem_wdata_valid_o),
    .out_ready_i(mem_wdata_ready_i),
    .out_data_o (mem_wdata_data_o)
  );
{%- else %}
  wire rd_go = rd_want & skid_ready;
{%- endif %}
  assign rd_req[ReqAddrLsb +: 32]  = rd_addr;
  assign rd_req[ReqLenLsb +: LenW] = rd_len;

  {{ skid }} #(
    .Width(ReqW)
  ) u_req_skid (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
{%- if writes %}
    .in_valid_i (rd_go | wr_go),
{%- else %}
    .in_valid_i (rd_go),
{%- endif %}
    .in_ready_o (skid_ready),
{%- if writes %}
    .in_data_i  (wr_sel ? wr_req : rd_req),
{%- else %}
    .in_data_i  (rd_req),
{%- endif %}
    .out_valid_o(mem_req_valid_o),
    .out_ready_i(mem_req_ready_i),
    .out_data_o (mem_req_data_o)
  );

  // ---------------------------------------------------------------------------------
  // Read beats wait in the buffer; words leave from its head.
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

  // The words leave through a skid register (its ready is a flop, so the IPU's ready
  // does not reach the counters, and the IPU's words start at flops).
  wire dmo_ready;
  wire [DmaW-1:0] dmo_data;

  {{ skid }} #(
    .Width(DmaW)
  ) u_dma_out (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (buf_valid),
    .in_ready_o (dmo_ready),
    .in_data_i  (dmo_data),
    .out_valid_o(dma_valid_o),
    .out_ready_i(dma_ready_i),
    .out_data_o (dma_data_o)
  );

  wire last_word = (words_q == 32'd1);
  wire send = buf_valid & dmo_ready;
{%- if wpb > 1 %}
  reg [WpbW-1:0] widx_q;  // the head beat's next word
  assign dmo_data = buf_data[widx_q * DmaW +: DmaW];
  assign buf_pop  = send & (last_word | (widx_q == LastWord));
{%- else %}
  assign dmo_data = buf_data;
  assign buf_pop  = send;
{%- endif %}

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      busy_q   <= 1'b0;
      words_q  <= 32'd0;
      beats_q  <= 32'd0;
      rptr_q   <= {RingW{1'b0}};
{%- if burst > 1 %}
      fresh_q     <= 1'b0;
      beats_nz_q  <= 1'b0;
      beats_big_q <= 1'b0;
{%- endif %}
{%- if wpb > 1 %}
      widx_q   <= {WpbW{1'b0}};
{%- endif %}
{%- if writes %}
      wptr_q   <= {WRingW{1'b0}};
{%- endif %}
    end else begin
      if (take) begin
        busy_q  <= rq_data != 32'd0;
        words_q <= rq_data;
{%- if wpb > 1 %}
        beats_q <= { {WpbW{1'b0}}, rq_data[31:WpbW]} + {31'd0, rq_data[WpbW-1:0] != {WpbW{1'b0}}};
{%- else %}
        beats_q <= rq_data;
{%- endif %}
      end else begin
        if (send) begin
          words_q <= words_q - 32'd1;
          if (last_word) begin
            busy_q <= 1'b0;
          end
        end
        if (rd_go) begin
          beats_q <= beats_q - { {(32 - CntW){1'b0}}, rd_beats};
        end
      end
      if (rd_go) begin
        rptr_q <= rptr_q + {{ beats_to_ring }};
      end
{%- if burst > 1 %}
      fresh_q     <= ~take & ~rd_go;
      beats_nz_q  <= beats_q != 32'd0;
      beats_big_q <= beats_q[31:BurstW] != {(32 - BurstW){1'b0}};
{%- endif %}
{%- if wpb > 1 %}
      if (send) begin
        widx_q <= buf_pop ? {WpbW{1'b0}} : widx_q + 1'b1;
      end
{%- endif %}
{%- if writes %}
      if (wr_go) begin
        wptr_q <= wptr_q + 1'b1;
      end
{%- endif %}
    end
  end

endmodule
