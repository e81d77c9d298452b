{{ stamp }}
// {{ name }}: memory arbiter (seed 002): {{ n }} requester(s) share one memory port,
// burst by burst. Policy: {{ policy }}.
//
// Requesters ({{ data_bits }}-bit beats, {{ addr_bits }}-bit byte addresses, lengths as beats - 1):
{%- for r in reqs %}
//   {{ r.name }}: {{ r.access }}, priority {{ r.priority }}, bursts of up to {{ r.max_burst }} beat(s); {{ r.name }}_req_data_i = {{ r.req_layout }}
{%- endfor %}
// A write beat, on <requester>_wdata_data_i and mem_wdata_data_o, is {{ wbeat_layout }}:
// strobe bit i enables byte i of data (bits 8i+7:8i), and memory keeps every byte whose
// strobe is low. The arbiter carries it unchanged. Read beats are data alone.
// Memory port: mem_req_* carries {addr, len, write, id} per burst; a write burst's beats
// follow on mem_wdata_*, in request order; a read burst's beats come back on mem_rdata_*,
// in request order.
//
{%- if pipe.grant_queue %}
// A winner is taken into a two-entry grant queue (its request, its one-hot grant and id)
// in the clock its request is taken, whenever the queue has room; the burst register
// (addr_q, len_q, write_q, gnt_q) loads the queue's head when the port is free or its
// burst ends. So the arbitration and the burst's end are a clock apart and neither waits
// for the other: requests are taken one a clock, and bursts follow each other with no
// idle clock on the memory's data beats.
{%- else %}
// A winner is registered into the burst register (addr_q, len_q, write_q, gnt_q) in the
// clock its request is taken. The next winner is chosen in the clock a burst ends, so
// bursts of different requesters follow each other with no idle clock on the memory's
// data beats.
{%- endif %}
// The grant is held until the burst's request has gone to memory, which it does once its
// tag has room. A read's beats return through a tag FIFO of Outstanding = {{ outstanding }} read
// bursts, {{ tag_layout }}, which routes them to their requester in order ({{ outstanding }} tags keep
// the port busy with reads from a memory of {{ latency }} clocks' latency, README "Reads in
// flight"). A write's tag goes to a FIFO of {{ write_tags }} write tags and a head register, which take
// its len + 1 beats from its writer after the request, in request order; so the burst's
// end never waits for a write beat, and a write goes to memory whatever reads are in flight.
// Write data and read data pass through skid registers (hs_skid); the tag FIFOs are hs_fifo.
// Pipeline for the {{ target_mhz }} MHz target: {{ pipe.wdata_line() }};
// {{ pipe.rtag_line() }}.
//
// Worst-case wait (clocks from a request to its burst holding the port, with a memory
// that takes a request and a write beat every clock, writers that send beats without
// gaps, and room in the read tag FIFO; a burst holds the port 1 clock for a read, its
// length for a write (its tag waits for the write beats before it), after the beats of
// the {{ write_tags }} + 1 write bursts that may be owed already):
{%- for w in waits %}
//   {{ w }}
{%- endfor %}
//
{%- if pipe.grant_queue %}
// Latency: a request is taken in the clock it arrives when the grant queue has room (its
// ready is combinational) and goes to memory 2 clocks later at the earliest; write beats
// reach memory {{ pipe.write_latency() }} clock(s) after they are taken (the first 2 clocks after the
// request at the earliest), read beats reach the requester 1 clock after memory offers them.
// Throughput: one burst per clock for reads, one beat per clock for write data.
// Combinational paths: every <requester>_req_ready_o depends on all
// <requester>_req_valid_i (the arbitration), and on nothing from the memory side.
// Every other output comes from flops.
{%- else %}
// Latency: a request is taken in the clock it arrives when the port is free (its ready is
// combinational) and goes to memory in the next clock; write beats reach memory {{ pipe.write_latency() }} clock(s)
// after they are taken (the first 2 clocks after the request at the earliest), read beats
// reach the requester 1 clock after memory offers them.
// Throughput: one burst per clock for reads, one beat per clock for write data.
// Combinational paths: every <requester>_req_ready_o depends on all
// <requester>_req_valid_i and on mem_req_ready_i (the burst ends and the next is taken
// in one clock).
// Every other output comes from flops.
{%- endif %}
// Cost: a burst register ({{ addr_bits }} + {{ len_bits }} + 2 + {{ n }} bits),{% if pipe.grant_queue %} a two-entry grant queue of
// the same fields and an id,{% endif %} one round-robin mask per class of two or more, a {{ wbeat_w }}-bit write and a
// {{ data_bits }}-bit read skid buffer,{% if pipe.wdata_stage %} a {{ wbeat_w }}-bit beat register,{% endif %} a {{ outstanding }}-entry read tag FIFO{% if pipe.rtag_stage %} and its head register{% endif %}, a {{ write_tags }}-entry write
// tag FIFO and its head register with a beat count.
module {{ name }} #(
  // Read bursts in flight: free to override.
  parameter integer Outstanding = {{ outstanding }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
{%- for r in reqs %}
  input wire {{ r.name }}_req_valid_i,
  output wire {{ r.name }}_req_ready_o,
  input wire [{{ r.req_w - 1 }}:0] {{ r.name }}_req_data_i,
{%- if r.writes %}
  input wire {{ r.name }}_wdata_valid_i,
  output wire {{ r.name }}_wdata_ready_o,
  input wire [{{ wbeat_w - 1 }}:0] {{ r.name }}_wdata_data_i,
{%- endif %}
{%- if r.reads %}
  output wire {{ r.name }}_rdata_valid_o,
  input wire {{ r.name }}_rdata_ready_i,
  output wire [{{ data_bits - 1 }}:0] {{ r.name }}_rdata_data_o,
{%- endif %}
{%- endfor %}
  output wire mem_req_valid_o,
  input wire mem_req_ready_i,
  output wire [{{ addr_bits - 1 }}:0] mem_req_addr_o,
  output wire [{{ len_bits - 1 }}:0] mem_req_len_o,
  output wire mem_req_write_o,
  output wire [{{ id_bits - 1 }}:0] mem_req_id_o,
  output wire mem_wdata_valid_o,
  input wire mem_wdata_ready_i,
  output wire [{{ wbeat_w - 1 }}:0] mem_wdata_data_o,
  input wire mem_rdata_valid_i,
  output wire mem_rdata_ready_o,
  input wire [{{ data_bits - 1 }}:0] mem_rdata_data_i
);

  localparam integer N = {{ n }};
  localparam integer AddrW = {{ addr_bits }};
  localparam integer LenW = {{ len_bits }};
  localparam integer IdW = {{ id_bits }};
{%- if rready_mux %}
  localparam integer IdN = {{ id_count }};  // 2 ** IdW, the indices an id can hold
{%- endif %}
  localparam integer DataW = {{ data_bits }};
  localparam integer WBeatW = {{ wbeat_w }};  // a write beat, {{ wbeat_layout }}
  localparam integer TagW = IdW + LenW + 1;  // and the single-beat flag
  // Field offsets: the request words (every requester's fields at the same place) and a
  // tag (read or write) {{ tag_layout }}.
{%- for (n, v) in lsbs %}
  localparam integer {{ n }} = {{ v }};
{%- endfor %}
{%- for c in classes %}
{%- if c.rr && c.size != "N" %}
  localparam integer {{ c.size }} = {{ c.k }};  // members of class {{ c.label }}
{%- endif %}
{%- endfor %}

  // ---------------------------------------------------------------------------------
  // Requests, by requester index.
  wire [N-1:0] req_valid;
{%- for r in reqs %}
  wire [AddrW-1:0] r_{{ r.name }}_addr = {{ r.name }}_req_data_i[ReqAddrLsb +: AddrW];
  wire [LenW-1:0] r_{{ r.name }}_len = {{ r.name }}_req_data_i[ReqLenLsb +: LenW];
  wire r_{{ r.name }}_write = {{ r.write_expr }};
{%- endfor %}
{%- for r in reqs %}
  assign req_valid[{{ r.idx }}] = {{ r.name }}_req_valid_i;
{%- endfor %}

  // ---------------------------------------------------------------------------------
  // Arbitration: the winner among the requests of this clock.
  reg [N-1:0] pick;
{%- for c in classes %}
{%- if c.rr %}
  // Class {{ c.label }}: {{ c.member_names }}, round robin: the first member after the last
  // winner of the class, else the first member. A member wins when no member ahead of it
  // asks; the order is a function of the mask alone (a priority matrix), so a request
  // meets two levels of logic, not a search.
  reg [{{ c.size }}-1:0] {{ c.label }}_req;
  reg [{{ c.size }}-1:0] {{ c.label }}_pick;
  reg [{{ c.size }}-1:0] {{ c.label }}_mask_q;  // members after the last winner
  reg [{{ c.size }}-1:0] {{ c.label }}_mask_d;
{%- endif %}
{%- endfor %}
{%- if any_rr %}
  integer k;
{%- endif %}

  always @(*) begin
    pick = {N{1'b0}};
{%- for c in classes %}
{%- if c.rr %}
    {{ c.label }}_req   = {{ c.req_concat }};
    // Member j is ahead of member i: below it with the same mask bit, or masked while i
    // is not.
{%- for t in c.pick_terms %}
    {{ t }}
{%- endfor %}
    // After this class wins, the members above the winner come first.
    {{ c.label }}_mask_d[0] = 1'b0;
    for (k = 1; k < {{ c.size }}; k = k + 1) begin
      {{ c.label }}_mask_d[k] = {{ c.label }}_mask_d[k-1] | {{ c.label }}_pick[k-1];
    end
{%- endif %}
{%- endfor %}
    // Classes, highest priority first.
{%- for c in classes %}
    {% if !loop.first %}end else {% endif %}if ({{ c.any_req }}) begin
{%- for a in c.assigns %}
      {{ a }}
{%- endfor %}
{%- endfor %}
    end
  end

  // The winner's request, selected by its one-hot pick.
  reg [AddrW-1:0] pick_addr;
  reg [LenW-1:0] pick_len;
  reg pick_write;
  reg [IdW-1:0] pick_id;
  always @(*) begin
    pick_addr  = {AddrW{1'b0}};
    pick_len   = {LenW{1'b0}};
    pick_write = 1'b0;
    pick_id    = {IdW{1'b0}};
{%- for r in reqs %}
    if (pick[{{ r.idx }}]) begin
      pick_addr  = pick_addr | r_{{ r.name }}_addr;
      pick_len   = pick_len | r_{{ r.name }}_len;
      pick_write = pick_write | r_{{ r.name }}_write;
      pick_id    = pick_id | {{ r.id_lit }};
    end
{%- endfor %}
  end

  // ---------------------------------------------------------------------------------
  // The next burst: what the burst register loads when the port is free or its burst
  // ends.
  wire arb_take;  // the arbitration may take a request this clock
{%- if pipe.grant_queue %}
  wire grant = arb_take & (|req_valid);  // a request is taken this clock
  // The grant queue: a ring of two entries, written at gq_wr_q and read at gq_rd_q. The
  // entry at gq_wr_q is free whenever the queue has room, so it takes the arbitration's
  // result every such clock (its enable is the valid flops alone) and keeps it when a
  // request was taken.
  reg [1:0] gq_valid_q;
  reg [1:0] gq_valid_d;
  reg gq_wr_q;
  reg gq_rd_q;
  // Flops, not LUT RAM: a LUT RAM's read is slower than a 2:1 mux of flops.
  (* ram_style = "logic" *) reg [N-1:0] gq_gnt_q [0:1];
  (* ram_style = "logic" *) reg [AddrW-1:0] gq_addr_q [0:1];
  (* ram_style = "logic" *) reg [LenW-1:0] gq_len_q [0:1];
  (* ram_style = "logic" *) reg gq_write_q [0:1];
  (* ram_style = "logic" *) reg [IdW-1:0] gq_id_q [0:1];
  assign arb_take = ~(gq_valid_q[0] & gq_valid_q[1]);
  wire nxt_valid = gq_valid_q[gq_rd_q];
  wire [N-1:0] nxt_gnt = gq_gnt_q[gq_rd_q] & {N{nxt_valid}};
  wire [AddrW-1:0] nxt_addr = gq_addr_q[gq_rd_q];
  wire [LenW-1:0] nxt_len = gq_len_q[gq_rd_q];
  wire nxt_write = gq_write_q[gq_rd_q];
  wire [IdW-1:0] nxt_id = gq_id_q[gq_rd_q];
{%- else %}
  // No grant queue at this clock: the burst register loads the winner of this clock.
  wire nxt_valid = |req_valid;
  wire [N-1:0] nxt_gnt = pick;
  wire [AddrW-1:0] nxt_addr = pick_addr;
  wire [LenW-1:0] nxt_len = pick_len;
  wire nxt_write = pick_write;
  wire [IdW-1:0] nxt_id = pick_id;
{%- endif %}

  // ---------------------------------------------------------------------------------
  // The burst register: who holds the request side, and its request. A burst ends when
  // its request goes to memory; a write's beats follow on the write side, which its tag
  // tells whose they are and how many (so the burst's end does not wait for a beat).
  reg busy_q;
  reg busy_d;
  reg [N-1:0] gnt_q;
  reg [N-1:0] gnt_d;
  reg [AddrW-1:0] addr_q;
  reg [LenW-1:0] len_q;
  reg write_q;
  reg [IdW-1:0] id_q;
  reg single_q;  // len_q == 0
  // Copies of busy_q & ~write_q and busy_q & write_q, so that a tag's push is one LUT
  // from flops (this, the room flop and the memory's ready) rather than behind the
  // request's valid, which fans out to the burst register's loads.
  reg busy_rd_q;
  reg busy_rd_d;
  reg busy_wr_q;
  reg busy_wr_d;

  wire tag_in_ready;
  reg tag_room_q;  // the read tag FIFO has room: a flop, counted here as in the FIFO
  reg tag_room_d;
  wire wtag_in_ready;
  reg wtag_room_q;  // the write tag FIFO has room: likewise
  reg wtag_room_d;
  wire wskid_in_ready;
  // A burst's request goes to memory once its tag has room: a read's in the read tags,
  // a write's in the write tags.
  wire send_room = write_q ? wtag_room_q : tag_room_q;
  wire issue = busy_q & send_room & mem_req_ready_i;
  wire burst_done = issue;
  wire take = ~busy_q | burst_done;  // the burst register takes the next burst
{%- if pipe.grant_queue %}
  wire load = take & nxt_valid;  // the queue's head goes to the burst register
{%- else %}
  assign arb_take = take;
{%- endif %}

  always @(*) begin
    busy_d    = busy_q;
    gnt_d     = gnt_q;
    busy_rd_d = busy_rd_q;
    busy_wr_d = busy_wr_q;
    if (take) begin
      busy_d    = nxt_valid;
      gnt_d     = nxt_gnt;
      busy_rd_d = nxt_valid & ~nxt_write;
      busy_wr_d = nxt_valid & nxt_write;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      busy_q    <= 1'b0;
      gnt_q     <= {N{1'b0}};
      busy_rd_q <= 1'b0;
      busy_wr_q <= 1'b0;
    end else begin
      busy_q    <= busy_d;
      gnt_q     <= gnt_d;
      busy_rd_q <= busy_rd_d;
      busy_wr_q <= busy_wr_d;
    end
  end
{%- for c in classes %}
{%- if c.rr %}

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      {{ c.label }}_mask_q <= { {{- c.size }}{1'b0}};
    end else if (arb_take & ({{ c.any_pick }})) begin
      {{ c.label }}_mask_q <= {{ c.label }}_mask_d;
    end
  end
{%- endif %}
{%- endfor %}

  // Datapath: loaded with the next burst's request whenever the burst register takes
  // one, no reset (with no next burst the port is idle and the fields unused).
  always @(posedge clk_i) begin
    if (take) begin
      addr_q  <= nxt_addr;
      len_q   <= nxt_len;
      write_q  <= nxt_write;
      id_q     <= nxt_id;
      single_q <= (nxt_len == {LenW{1'b0}});
    end
  end
{%- if pipe.grant_queue %}

  always @(*) begin
    gq_valid_d = gq_valid_q;
    if (grant) begin
      gq_valid_d[gq_wr_q] = 1'b1;
    end
    if (load) begin
      gq_valid_d[gq_rd_q] = 1'b0;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      gq_valid_q <= 2'b00;
      gq_wr_q    <= 1'b0;
      gq_rd_q    <= 1'b0;
    end else begin
      gq_valid_q <= gq_valid_d;
      gq_wr_q    <= gq_wr_q ^ grant;
      gq_rd_q    <= gq_rd_q ^ load;
    end
  end

  always @(posedge clk_i) begin
    if (arb_take) begin
      gq_gnt_q[gq_wr_q]   <= pick;
      gq_addr_q[gq_wr_q]  <= pick_addr;
      gq_len_q[gq_wr_q]   <= pick_len;
      gq_write_q[gq_wr_q] <= pick_write;
      gq_id_q[gq_wr_q]    <= pick_id;
    end
  end
{%- endif %}

{%- for r in reqs %}
  assign {{ r.name }}_req_ready_o = arb_take & pick[{{ r.idx }}];
{%- endfor %}

  assign mem_req_valid_o = busy_q & send_room;
  assign mem_req_addr_o  = addr_q;
  assign mem_req_len_o   = len_q;
  assign mem_req_write_o = write_q;
  assign mem_req_id_o    = id_q;

  // ---------------------------------------------------------------------------------
  // Write data: a tag {{ tag_layout }} per write burst sent to memory, in request order
  // (WriteTags in a FIFO and one in the head register); the head's writer's beats go
  // through {% if pipe.wdata_stage %}a beat register and {% endif %}a skid register to memory.
  localparam integer WriteTags = {{ write_tags }};
  localparam [LenW-1:0] LenOne = 1;
  localparam integer WtagCntW = $clog2(WriteTags + 1);
  localparam [WtagCntW-1:0] WtagsFull = WriteTags[WtagCntW-1:0];
  localparam [WtagCntW-1:0] WtagsLast = WtagsFull - 1'b1;
  wire wtag_push = busy_wr_q & wtag_room_q & mem_req_ready_i;  // issue & write_q
  wire wtag_valid;
  wire [TagW-1:0] wtag_data;
  wire [IdW-1:0] wtag_id = wtag_data[TagIdLsb +: IdW];
  wire [LenW-1:0] wtag_len = wtag_data[TagLenLsb +: LenW];
  wire wtag_single = wtag_data[TagSingleLsb +: 1];
  wire wtag_pop;
  wire wtag_popped = wtag_valid & wtag_pop;
  reg [WtagCntW-1:0] wtags_q;
  reg [WtagCntW-1:0] wtags_d;
  wire unused_wtag_in_ready;
  assign unused_wtag_in_ready = wtag_in_ready;  // the same as wtag_room_q (FORMAL checks it)
  wire [WtagCntW-1:0] wtags_up = wtags_q + 1'b1;
  wire [WtagCntW-1:0] wtags_down = wtags_q - 1'b1;
  wire wtags_grow = wtag_push & ~wtag_popped;
  wire wtags_shrink = wtag_popped & ~wtag_push;

  always @(*) begin
    wtags_d = wtags_grow ? wtags_up : (wtags_shrink ? wtags_down : wtags_q);
    wtag_room_d = wtags_grow ? (wtags_q != WtagsLast) : (wtag_room_q | wtags_shrink);
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      wtags_q     <= {WtagCntW{1'b0}};
      wtag_room_q <= 1'b1;
    end else begin
      wtags_q     <= wtags_d;
      wtag_room_q <= wtag_room_d;
    end
  end

  {{ fifo }} #(
    .Width(TagW),
    .Depth(WriteTags)
  ) u_write_tags (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (wtag_push),
    .in_ready_o (wtag_in_ready),
    .in_data_i  ({{ tag_in }}),
    .out_valid_o(wtag_valid),
    .out_ready_i(wtag_pop),
    .out_data_o (wtag_data)
  );

  // The head write tag: whose beats are taken now (one flag per writer) and how many are
  // left. It takes the next tag when it is empty or its burst's last beat is taken.
  reg wtag_valid_q;
  reg wtag_valid_d;
  reg [LenW-1:0] wtag_left_q;  // beats of the head burst after the next one
  reg wtag_last_q;  // the next beat is the burst's last: a flop, so no compare on the pop
{%- for r in reqs %}
{%- if r.writes %}
  reg wtag_{{ r.name }}_q;
{%- endif %}
{%- endfor %}
{%- if any_writer %}
  reg wsel_valid;
  reg [WBeatW-1:0] wsel_data;
{%- else %}
  wire wsel_valid = 1'b0;
  wire [WBeatW-1:0] wsel_data = {WBeatW{1'b0}};
  wire unused_wtag_id;
  assign unused_wtag_id = ^wtag_id;  // no writer: no flag decodes it
{%- endif %}
{%- if pipe.wdata_stage %}
  // The beat register takes a beat when it is empty or its beat leaves for the skid.
  reg wstage_valid_q;
  reg wstage_valid_d;
  reg [WBeatW-1:0] wstage_data_q;
  wire wstage_ready = ~wstage_valid_q | wskid_in_ready;
  wire wtake = wtag_valid_q & wstage_ready;
{%- else %}
  wire wtake = wtag_valid_q & wskid_in_ready;
{%- endif %}
  wire wfire = wtake & wsel_valid;
  assign wtag_pop = ~wtag_valid_q | (wfire & wtag_last_q);

  always @(*) begin
    wtag_valid_d = wtag_pop ? wtag_valid : wtag_valid_q;
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      wtag_valid_q <= 1'b0;
    end else begin
      wtag_valid_q <= wtag_valid_d;
    end
  end

  always @(posedge clk_i) begin
    if (wtag_pop) begin
      wtag_left_q <= wtag_len;
      wtag_last_q <= wtag_single;
{%- for r in reqs %}
{%- if r.writes %}
      wtag_{{ r.name }}_q <= (wtag_id == {{ r.id_lit }});
{%- endif %}
{%- endfor %}
    end else if (wfire) begin
      wtag_left_q <= wtag_left_q - 1'b1;
      wtag_last_q <= (wtag_left_q == LenOne);
    end
  end

  // The head's writer's beat.
{%- if any_writer %}
  always @(*) begin
    wsel_valid = 1'b0;
    wsel_data  = {WBeatW{1'b0}};
{%- for r in reqs %}
{%- if r.writes %}
    if (wtag_{{ r.name }}_q) begin
      wsel_valid = wsel_valid | {{ r.name }}_wdata_valid_i;
      wsel_data  = wsel_data | {{ r.name }}_wdata_data_i;
    end
{%- endif %}
{%- endfor %}
  end
{%- else %}
  // No requester writes: no beat to select (wsel_* are constant wires).
{%- endif %}
{%- for r in reqs %}
{%- if r.writes %}
  assign {{ r.name }}_wdata_ready_o = wtake & wtag_{{ r.name }}_q;
{%- endif %}
{%- endfor %}

{%- if pipe.wdata_stage %}

  // The beat register: its data loads whenever it can take a beat (the valid bit says
  // whether it holds one), so neither the head's flags nor the writers' valid bits reach
  // the data flops' enable.
  always @(*) begin
    wstage_valid_d = wstage_ready ? wfire : wstage_valid_q;
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      wstage_valid_q <= 1'b0;
    end else begin
      wstage_valid_q <= wstage_valid_d;
    end
  end

  always @(posedge clk_i) begin
    if (wstage_ready) begin
      wstage_data_q <= wsel_data;
    end
  end
{%- endif %}

  {{ skid }} #(
    .Width(WBeatW)
  ) u_wdata_skid (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
{%- if pipe.wdata_stage %}
    .in_valid_i (wstage_valid_q),
    .in_ready_o (wskid_in_ready),
    .in_data_i  (wstage_data_q),
{%- else %}
    .in_valid_i (wfire),
    .in_ready_o (wskid_in_ready),
    .in_data_i  (wsel_data),
{%- endif %}
    .out_valid_o(mem_wdata_valid_o),
    .out_ready_i(mem_wdata_ready_i),
    .out_data_o (mem_wdata_data_o)
  );
  // ---------------------------------------------------------------------------------
  // Read data: a tag {{ tag_layout }} per read burst in flight, in request order; beats come
  // back through a skid register and go to the requester at the head tag.
  wire tag_valid;
  wire [TagW-1:0] tag_data;
  wire [IdW-1:0] tag_id = tag_data[TagIdLsb +: IdW];
  wire [LenW-1:0] tag_len = tag_data[TagLenLsb +: LenW];
  wire tag_single = tag_data[TagSingleLsb +: 1];
  wire rd_valid;
  wire [DataW-1:0] rd_data;
  reg rd_sel_ready;
  // The burst whose beats come back now: its tag, and per reader whether it is that
  // reader's.
{%- if !pipe.rtag_stage %}
  wire head_valid;
{%- endif %}
{%- for r in reqs %}
{%- if r.reads %}
  wire head_{{ r.name }};
{%- endif %}
{%- endfor %}
{%- if pipe.rtag_stage %}
  // The head's reader takes the beat on offer (its flags are clear while the head is
  // empty, so they alone qualify the ready).
  wire rd_take = rd_sel_ready;
{%- else %}
  // The head's reader takes the beat on offer.
  wire rd_take = head_valid & rd_sel_ready;
{%- endif %}
  wire rd_fire = rd_valid & rd_take;
  wire rd_last;  // the beat on offer is its burst's last
  wire tag_pop;

  // Read tags in flight, counted as the FIFO counts them, so that a read's room for its
  // tag is a flop rather than the FIFO's count compare on the path to the grant.
  localparam integer TagCntW = $clog2(Outstanding + 1);
  localparam [TagCntW-1:0] TagsFull = Outstanding[TagCntW-1:0];
  wire tag_push = busy_rd_q & tag_room_q & mem_req_ready_i;  // issue & ~write_q
  wire tag_popped = tag_valid & tag_pop;
  reg [TagCntW-1:0] tags_q;
  reg [TagCntW-1:0] tags_d;
  wire unused_tag_in_ready;
  assign unused_tag_in_ready = tag_in_ready;  // the same as tag_room_q (FORMAL checks it)

  // The count's neighbours and the compare come from flops; the push and pop only
  // select, so no carry lies between a beat's pop and the room flop.
  localparam [TagCntW-1:0] TagsLast = TagsFull - 1'b1;
  wire [TagCntW-1:0] tags_up = tags_q + 1'b1;
  wire [TagCntW-1:0] tags_down = tags_q - 1'b1;
  wire tags_grow = tag_push & ~tag_popped;
  wire tags_shrink = tag_popped & ~tag_push;

  always @(*) begin
    tags_d = tags_grow ? tags_up : (tags_shrink ? tags_down : tags_q);
    tag_room_d = tags_grow ? (tags_q != TagsLast) : (tag_room_q | tags_shrink);
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      tags_q     <= {TagCntW{1'b0}};
      tag_room_q <= 1'b1;
    end else begin
      tags_q     <= tags_d;
      tag_room_q <= tag_room_d;
    end
  end

  {{ fifo }} #(
    .Width(TagW),
    .Depth(Outstanding)
  ) u_read_tags (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (tag_push),
    .in_ready_o (tag_in_ready),
    .in_data_i  ({{ tag_in }}),
    .out_valid_o(tag_valid),
    .out_ready_i(tag_pop),
    .out_data_o (tag_data)
  );
{%- if pipe.rtag_stage %}

  // The head tag register: the FIFO's head tag, decoded into one flag per reader, so
  // the read beat's routing comes from flops. It takes the next tag when it is empty or
  // its burst's last beat leaves.
  reg rtag_valid_q;
  reg rtag_valid_d;
  reg [LenW-1:0] rtag_left_q;  // beats of the head burst after the one on offer
  reg rtag_last_q;  // the beat on offer is the last: a flop, so no compare on the pop
{%- if rready_mux %}
  reg [IdW-1:0] rtag_id_q;  // the head's requester index, to select its reader's ready
{%- endif %}
{%- for r in reqs %}
{%- if r.reads %}
  reg rtag_{{ r.name }}_q;
{%- endif %}
{%- endfor %}
  assign tag_pop    = ~rtag_valid_q | (rd_fire & rd_last);
  assign rd_last    = rtag_last_q;
{%- for r in reqs %}
{%- if r.reads %}
  assign head_{{ r.name }} = rtag_{{ r.name }}_q;
{%- endif %}
{%- endfor %}

  always @(*) begin
    rtag_valid_d = tag_pop ? tag_valid : rtag_valid_q;
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      rtag_valid_q <= 1'b0;
    end else begin
      rtag_valid_q <= rtag_valid_d;
    end
  end

  always @(posedge clk_i) begin
    if (tag_pop) begin
      rtag_left_q <= tag_len;
      rtag_last_q <= tag_single;
{%- if rready_mux %}
      rtag_id_q   <= tag_id;
{%- endif %}
{%- for r in reqs %}
{%- if r.reads %}
      rtag_{{ r.name }}_q <= tag_valid & (tag_id == {{ r.id_lit }});
{%- endif %}
{%- endfor %}
    end else if (rd_fire) begin
      rtag_left_q <= rtag_left_q - 1'b1;
      rtag_last_q <= (rtag_left_q == LenOne);
    end
  end
{%- else %}
  reg [LenW-1:0] rbeat_q;
  reg [LenW-1:0] rbeat_d;
  wire unused_tag_single;
  assign unused_tag_single = tag_single;  // the beat count gives the last beat here
  assign tag_pop    = rd_fire & rd_last;
  assign head_valid = tag_valid;
  assign rd_last    = (rbeat_q == tag_len);

  always @(*) begin
    rbeat_d = rbeat_q;
    if (rd_fire) begin
      rbeat_d = rd_last ? {LenW{1'b0}} : rbeat_q + 1'b1;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      rbeat_q <= {LenW{1'b0}};
    end else begin
      rbeat_q <= rbeat_d;
    end
  end
{%- for r in reqs %}
{%- if r.reads %}
  assign head_{{ r.name }} = (tag_id == {{ r.id_lit }});
{%- endif %}
{%- endfor %}
{%- endif %}

  {{ skid }} #(
    .Width(DataW)
  ) u_rdata_skid (
    .clk_i      (clk_i),
    .{{ rst.port }}{{ rst.pad }}({{ rst.port }}),
    .in_valid_i (mem_rdata_valid_i),
    .in_ready_o (mem_rdata_ready_o),
    .in_data_i  (mem_rdata_data_i),
    .out_valid_o(rd_valid),
    .out_ready_i(rd_take),
    .out_data_o (rd_data)
  );

{%- if rready_mux %}
  // The head's reader's ready: a mux on the head's index (one LUT level for up to four
  // requesters), not an AND-OR over the per-reader flags, as it reaches the tag FIFO's
  // pop and the read skid's loads. Indices of writers (and past N) give 1'b0.
  wire [IdN-1:0] rdata_ready_by_id = {{ rready_by_id }};

  always @(*) begin
    rd_sel_ready = rtag_valid_q & rdata_ready_by_id[rtag_id_q];
  end
{%- else %}
  always @(*) begin
    rd_sel_ready = 1'b0;
{%- for r in reqs %}
{%- if r.reads %}
    rd_sel_ready = rd_sel_ready | (head_{{ r.name }} & {{ r.name }}_rdata_ready_i);
{%- endif %}
{%- endfor %}
  end
{%- endif %}

{%- for r in reqs %}
{%- if r.reads %}
{%- if pipe.rtag_stage %}
  assign {{ r.name }}_rdata_valid_o = rd_valid & head_{{ r.name }};
{%- else %}
  assign {{ r.name }}_rdata_valid_o = rd_valid & head_valid & head_{{ r.name }};
{%- endif %}
  assign {{ r.name }}_rdata_data_o  = rd_data;
{%- endif %}
{%- endfor %}

`ifdef FORMAL
  // ---------------------------------------------------------------------------------
  // Arbitration properties, proven by Yosys (`sat -tempinduct`): at most one grant, no
  // grant without a request, a grant held until its burst ends, a burst sent only with
  // room for its tag, a write tag's burst taking exactly len + 1 beats from its writer
  // and none from anyone else, and, where the policy bounds it, the wait: grants to
  // others while a requester waits.
  reg f_past_valid = 1'b0;
{%- if !pipe.grant_queue %}
  wire grant = arb_take & (|req_valid);  // a request is taken this clock
{%- endif %}
  reg f_open_q;  // a burst was running last clock and did not end
  reg [N-1:0] f_gnt_q;
  reg [LenW:0] f_wbeats_q;  // beats taken for the head write tag
  reg [LenW:0] f_wbeats_d;
  reg [LenW:0] f_wlen_q;  // the head write tag's len + 1
  reg [WtagCntW-1:0] f_wfifo_tags_q;  // write tags the FIFO took and has not given back
  reg [N-1:0] f_whead;  // the head write tag's flags, by requester index

  always @(*) begin
    f_whead = {N{1'b0}};
{%- for r in reqs %}
{%- if r.writes %}
    f_whead[{{ r.idx }}] = wtag_{{ r.name }}_q;
{%- endif %}
{%- endfor %}
  end
  wire            f_wfire = 1'b0{% for r in reqs %}{% if r.writes %} | ({{ r.name }}_wdata_valid_i & {{ r.name }}_wdata_ready_o){% endif %}{% endfor %};
{%- for b in bounds %}
  reg [5:0] f_wait_{{ b.name }}_q;  // grants to others while {{ b.name }} waits
  reg [5:0] f_ahead_{{ b.name }};  // members served before {{ b.name }} from here on
{%- endfor %}
  reg [TagCntW-1:0] f_fifo_tags_q;  // tags the FIFO took and has not given back

  always @(posedge clk_i) begin
    if ({{ rst.active }}) begin
      f_fifo_tags_q  <= {TagCntW{1'b0}};
      f_wfifo_tags_q <= {WtagCntW{1'b0}};
    end else begin
      f_fifo_tags_q  <= f_fifo_tags_q + (tag_push & tag_in_ready) - tag_popped;
      f_wfifo_tags_q <= f_wfifo_tags_q + (wtag_push & wtag_in_ready) - wtag_popped;
    end
  end

  always @(*) begin
    f_wbeats_d = wtag_pop ? {(LenW + 1){1'b0}} : f_wbeats_q + { {LenW{1'b0}}, f_wfire};
  end

  always @(posedge clk_i) begin
    f_past_valid <= 1'b1;
    f_gnt_q      <= gnt_q;
    if (wtag_pop) begin
      f_wlen_q <= {1'b0, wtag_len} + 1'b1;
    end
    if ({{ rst.active }}) begin
      f_open_q   <= 1'b0;
      f_wbeats_q <= {(LenW + 1){1'b0}};
    end else begin
      f_open_q   <= busy_q & ~burst_done;
      f_wbeats_q <= f_wbeats_d;
    end
  end
{%- for b in bounds %}

  always @(posedge clk_i) begin
    if ({{ rst.active }} || !{{ b.name }}_req_valid_i || {{ b.name }}_req_ready_o) begin
      f_wait_{{ b.name }}_q <= 6'd0;
    end else if (grant) begin
      f_wait_{{ b.name }}_q <= f_wait_{{ b.name }}_q + 6'd1;
    end
  end
{%- endfor %}

  always @(*) begin
{%- for b in bounds %}
{%- if b.k > 1 %}
    // Members of {{ b.class_label }} the round robin serves before {{ b.name }} (position {{ b.pos }}).
    f_ahead_{{ b.name }} = 6'd0;
    for (k = 0; k < {{ b.class_size }}; k = k + 1) begin
      if ({{ b.class_label }}_mask_q[{{ b.pos }}] ? ({{ b.class_label }}_mask_q[k] && k < {{ b.pos }})
                                  : ({{ b.class_label }}_mask_q[k] || k < {{ b.pos }})) begin
        f_ahead_{{ b.name }} = f_ahead_{{ b.name }} + 6'd1;
      end
    end
{%- else %}
    f_ahead_{{ b.name }} = 6'd0;
{%- endif %}
{%- endfor %}
    if (!f_past_valid) begin
      assume({{ rst.active }});
    end
    if (f_past_valid && !({{ rst.active }})) begin
      // At most one grant, and a grant exactly while a burst runs.
      assert((gnt_q & (gnt_q - 1'b1)) == {N{1'b0}});
      assert(busy_q == (|gnt_q));
      // The priority order picks exactly one of the requests of this clock, if any (the
      // matrix of every class is a strict total order).
      assert((pick & (pick - 1'b1)) == {N{1'b0}});
      assert((pick & ~req_valid) == {N{1'b0}});
      assert((|pick) == (|req_valid));
      // No grant without a request: a request is taken only while it is offered.
{%- for r in reqs %}
      if ({{ r.name }}_req_ready_o) begin
        assert({{ r.name }}_req_valid_i);
      end
{%- endfor %}
      // The tag FIFO's contract, assumed: its own proof shows its occupancy is the tags
      // it took less those it gave back, but its properties are not read here (so its
      // unreachable counts would break induction).
      assume(tag_in_ready == (f_fifo_tags_q != TagsFull));
      assume(tag_valid == (f_fifo_tags_q != {TagCntW{1'b0}}));
      // The tag count is the FIFO's, and the room flop is what the count says.
      assert(tags_q == f_fifo_tags_q);
      assert(tag_room_q == (tags_q != TagsFull));
      assert(tag_room_q == tag_in_ready);
      // The single-beat flag a tag carries is the burst's len = 0 (the FIFOs' contract:
      // a tag comes out as it went in).
      if (busy_q) begin
        assert(single_q == (len_q == {LenW{1'b0}}));
      end
      if (wtag_valid) begin
        assume(wtag_single == (wtag_len == {LenW{1'b0}}));
      end
      // Likewise the write tags.
      assume(wtag_in_ready == (f_wfifo_tags_q != WtagsFull));
      assume(wtag_valid == (f_wfifo_tags_q != {WtagCntW{1'b0}}));
      assert(wtags_q == f_wfifo_tags_q);
      assert(wtag_room_q == (wtags_q != WtagsFull));
      assert(wtag_room_q == wtag_in_ready);
      // The push copies of the burst's direction, and so each tag pushed exactly when its
      // burst's request goes to memory.
      assert(busy_rd_q == (busy_q & ~write_q));
      assert(busy_wr_q == (busy_q & write_q));
      assert(tag_push == (issue & ~write_q));
      assert(wtag_push == (issue & write_q));
{%- if rready_mux %}
      // The head's reader's ready, selected by its index, is the one its flags select:
      // each reader's flag is its index's.
      if (rtag_valid_q) begin
{%- for r in reqs %}
{%- if r.reads %}
        assert(head_{{ r.name }} == (rtag_id_q == {{ r.id_lit }}));
{%- endif %}
{%- endfor %}
        assert(rd_sel_ready == (1'b0{% for r in reqs %}{% if r.reads %} | (head_{{ r.name }} & {{ r.name }}_rdata_ready_i){% endif %}{% endfor %}));
      end
{%- endif %}
      // A burst goes to memory only with room for its tag.
      if (tag_push) begin
        assert(tag_in_ready);
      end
      if (wtag_push) begin
        assert(wtag_in_ready);
      end
{%- if pipe.grant_queue %}
      // The grant queue is a ring of two whose head is its older entry, and a queued
      // grant is one requester's.
      if (gq_valid_q[0] == gq_valid_q[1]) begin
        assert(gq_wr_q == gq_rd_q);
      end else begin
        assert(gq_wr_q != gq_rd_q);
        assert(gq_valid_q[gq_rd_q]);
      end
      if (gq_valid_q[0]) begin
        assert(gq_gnt_q[0] != {N{1'b0}});
        assert((gq_gnt_q[0] & (gq_gnt_q[0] - 1'b1)) == {N{1'b0}});
      end
      if (gq_valid_q[1]) begin
        assert(gq_gnt_q[1] != {N{1'b0}});
        assert((gq_gnt_q[1] & (gq_gnt_q[1] - 1'b1)) == {N{1'b0}});
      end
{%- endif %}
      // A grant is held until its burst ends.
      if (f_open_q) begin
        assert(busy_q);
        assert(gnt_q == f_gnt_q);
      end
      // Write beats: only the head write tag's writer's, exactly len + 1 per write tag.
      if (!wtag_valid_q) begin
        assert(!f_wfire);
      end else begin
        assert(f_wbeats_q + {1'b0, wtag_left_q} + 1'b1 == f_wlen_q);
        assert(wtag_last_q == (wtag_left_q == {LenW{1'b0}}));
        if (wtag_pop) begin
          assert(f_wbeats_q + { {LenW{1'b0}}, f_wfire} == f_wlen_q);
        end
        assert((f_whead & (f_whead - 1'b1)) == {N{1'b0}});
      end
{%- for r in reqs %}
{%- if r.writes %}
      if ({{ r.name }}_wdata_ready_o) begin
        assert(wtag_valid_q & wtag_{{ r.name }}_q);
      end
{%- endif %}
{%- endfor %}
{%- for c in classes %}
{%- if c.rr %}
      // The round-robin mask of {{ c.label }} is a thermometer: the members above a winner.
      for (k = 1; k < {{ c.size }}; k = k + 1) begin
        if ({{ c.label }}_mask_q[k-1]) begin
          assert({{ c.label }}_mask_q[k]);
        end
      end
{%- endif %}
{%- endfor %}
{%- for b in bounds %}
      // Bounded wait: {{ b.name }} sees at most {{ b.bound }} grant(s) to others before its own.
      assert(f_wait_{{ b.name }}_q <= 6'd{{ b.bound }});
      if ({{ b.name }}_req_valid_i) begin
        assert(f_wait_{{ b.name }}_q + f_ahead_{{ b.name }} <= 6'd{{ b.bound }});
      end
{%- endfor %}
    end
  end
`endif
endmodule
