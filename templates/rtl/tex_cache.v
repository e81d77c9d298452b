{{ stamp }}
// {{ name }}: non-blocking, read-only, banked texture cache (seed 001), organised as in
// Igehy, Eldridge and Proudfoot's prefetching texture cache (1998): tags are checked when
// a request arrives and misses are sent to memory at once; the request then waits in a
// queue of {{ queue_depth }} passes while its lines arrive, and its data is read when it
// reaches the head. Hits under misses and misses under misses need no extra logic.
//
// {{ size_bytes }} bytes: {{ sets }} set(s) x {{ ways }} way(s) of {{ line_bytes }}-byte lines, {{ replacement }}
// replacement; {{ banks }} banks ({{ layout }} layout); {{ ports }} texels per request;
// {{ mshr }} line fills in flight over a {{ bus_bits }}-bit bus ({{ beats }} beats a line).
//
// req_data_i:  {inv, active[{{ ports }}], word address[{{ ports }}] x {{ aw }} bits}, texel 0 lowest.
//              inv = 1 forgets every line (texture reload); its response is all zero.
// rsp_data_o:  {misses[{{ count_w - 1 }}:0], hits[{{ count_w - 1 }}:0], texel word[{{ ports }}] x 32 bits}, in request order;
//              inactive texels read as zero. hits and misses follow src/model/tex_cache.rs.
{%- if merges %}
// Merge ({{ merge_module }}): a request's texels are folded onto their distinct lines, and
// the tag unit looks up {{ tag_ports }} lines a clock: a request on more lines takes a clock a
// group of {{ tag_ports }}, in the order of each line's first texel. Every texel of a line after its
// first counts as a hit. The expand stage ({{ expand_module }}) puts the texels back into
// the tag unit's passes.
{%- endif %}
// Tag unit ({{ tags_module }}): a request whose texels all hit takes one clock; a miss takes
// four (its set is read, its victim chosen, the line allocated). A miss takes the lowest
// invalid way, else the least recently used (or oldest) way this pass does not use, at
// once: passes queued before the miss still read the victim's old line, and the new line
// is written when they all have (Igehy et al. write a fill when its request reaches the
// head; this writes it as early as that is safe). Only a way with {{ max_pending }} fills already
// in flight makes the miss wait. When every way of a set is used by the current pass the
// request continues in a new pass.
// Data stage: one clock per pass when no bank is asked for two words; the banks read in
// {{ ram_clocks }} clock(s) at {{ target_mhz }} MHz. On hits a request passes {{ hit_regs }} registers to its response
// ({% if merges %}the merge stage's {{ merge_regs }}, the first its input register{% else %}input{% endif %}, L1, {% if tag_copies %}LA (the tags read), {% endif %}L2, RUN, pass skid, plan A,
// plan B, pass queue, pass skid, s1, {{ data_stages }}, response queue), plus any queueing.
// Bank check at elaboration: the worst of {{ footprints_checked }} 2x2 footprints (every position,
// wrap mode and mip level) reads in {{ footprint_clocks }} clock(s); a full request in at most {{ request_bound }}.
// Combinational paths: none between ports (in and out go through registers).
// Parameters: QueueDepth and MshrEntries are free to override. Every other value below is
// structural, so a localparam: the port list, the bank functions, the pass layout and the
// per-texel replication are rendered in Rust (src/rtl/tex_cache.rs) for these sizes, and
// the bank check above holds only for them.
module {{ name }} #(
  // Passes queued between tags and data, and line fills in flight: free to override.
  parameter integer QueueDepth = {{ queue_depth }},
  parameter integer MshrEntries = {{ mshr }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire req_valid_i,
  output wire req_ready_o,
  input wire [{{ req_w - 1 }}:0] req_data_i,
  output wire rsp_valid_o,
  input wire rsp_ready_i,
  output wire [{{ rsp_w - 1 }}:0] rsp_data_o,
  output wire mem_req_valid_o,
  input wire mem_req_ready_i,
  output wire [31:0] mem_req_addr_o,
  input wire mem_rsp_valid_i,
  output wire mem_rsp_ready_o,
  input wire [{{ bus_bits - 1 }}:0] mem_rsp_data_i
);

  localparam integer Ports = {{ ports }};
  localparam integer OffW = {{ off_w }};  // word offset in a line
  localparam integer LineAddrW = {{ line_addr_w }};  // line address
  localparam integer Lines = {{ lines }};
  localparam integer SlotW = {{ slot_w }};
  localparam integer Banks = {{ banks }};
  localparam integer BankW = {{ bank_w }};
  localparam integer BankAddrW = {{ bank_addr_w }};
  localparam integer BankDepth = {{ bank_depth }};
  localparam integer Beats = {{ beats }};
  localparam integer BeatW = {{ beat_w }};
  localparam integer RefW = $clog2(QueueDepth + 2);
  // A queued pass (see pass_fields in src/rtl/tex_cache.rs), lowest field first.
  localparam integer CountW = {{ count_w }};  // hit and miss counts
  localparam integer PassW = {{ pass_w }};
{%- for f in pass_fields %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer GenW = {{ gen_w }};  // line generation, per slot
  localparam [GenW-1:0] MaxPending = {{ max_pending }};  // fills in flight per slot
  localparam integer TexW = SlotW + OffW;  // a texel in a queued pass: {slot, off}
  localparam integer TexSlotLsb = OffW;
  localparam integer FillsW = {{ fills_w }};  // a pass's own line fills
  // Completed fills that no pass in s1 or before it has claimed; negative while the pass
  // in s1 waits. It ranges from -Ports to the fills of every pass behind s1.
  localparam integer AvailW = $clog2((QueueDepth + 8) * Ports + 1) + 1;
  localparam integer MshrPtrW = (MshrEntries > 1) ? $clog2(MshrEntries) : 1;
  localparam integer MshrCntW = $clog2(MshrEntries + 1);
  localparam integer LastMshrIdx = MshrEntries - 1;
  localparam [MshrPtrW-1:0] LastMshr = LastMshrIdx[MshrPtrW-1:0];
  localparam integer MshrCount = MshrEntries;
  localparam [MshrCntW-1:0] MshrFull = MshrCount[MshrCntW-1:0];
  localparam integer OneIdx = 1;
  localparam [MshrCntW-1:0] MshrOne = OneIdx[MshrCntW-1:0];
  localparam integer SecondMshrIdx = (MshrEntries > 1) ? 1 : 0;
  localparam [MshrPtrW-1:0] SecondMshr = SecondMshrIdx[MshrPtrW-1:0];
  localparam integer ReqW = {{ req_w }};
  localparam integer RspW = {{ rsp_w }};
  localparam integer WordW = {{ word_w }};
  localparam integer OutDepth = {{ out_depth }};  // response queue, and stage 1's credits
  localparam integer CreditW = {{ credit_w }};
  localparam [CreditW-1:0] OutCredits = OutDepth[CreditW-1:0];
  localparam integer RoundW = {{ round_w }};  // a texel's bank round, 0..Ports-1
  // A planned pass ({{ plan_module }}): the pass, each texel's round, and more[Ports].
  localparam integer PlanW = {{ plan_w }};
{%- for f in plan_fields %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer LastBeatIdx = Beats - 1;
  localparam [BeatW-1:0] LastBeat = LastBeatIdx[BeatW-1:0];

  // Where a word of a line lives: bank and address within the bank (TexCache::bank_bit
  // in src/config/tmu.rs). Each function takes the whole word offset and uses its share
  // of the bits; the rest go to a sink.
{% include "rtl/tex_cache_bank_of.v" %}
{%- if cls.on %}

  // The banks' parity classes. A lane (a 2x2 footprint's four texels) reads each class
  // through a port of its own, port (lane, class) at lane * 4 + class: a round's word of
  // one bank of the class, which the plan makes sure is one bank. A port's address is
  // the OR of its served texels' (they ask for one word), a bank's the OR of the ports
  // that read it; a texel's word comes from its lane's port for its class, a port's
  // from one of its class's banks. So each bank's data goes to a port of each lane (4:1
  // selects), not to every texel (16:1).
{% include "rtl/tex_cache_class_of.v" %}

  // The bank of class c, index q.
  function [BankW-1:0] bank_join(input [1:0] c, input [IndexW-1:0] q);
    bank_join = {{ cls.join_expr }};
  endfunction
{%- endif %}
{%- if idx_w > 0 %}

  function [{{ idx_w - 1 }}:0] idx_of(input [OffW-1:0] off);
    reg unused_off;  // the bits bank_of takes
    begin
      unused_off = ^off;
      idx_of     = {{ idx_expr }};
    end
  endfunction

  function [BankAddrW-1:0] bank_addr(input [SlotW-1:0] slot, input [OffW-1:0] off);
    bank_addr = {slot, idx_of(off)};
  endfunction
{%- else %}

  // One word per bank per line: the slot alone is the address; off picks only the bank.
  function [BankAddrW-1:0] bank_addr(input [SlotW-1:0] slot, input [OffW-1:0] off);
    reg unused_off;
    begin
      unused_off = ^off;
      bank_addr  = slot;
    end
  endfunction
{%- endif %}

  // ---------------------------------------------------------------------------------
  // Input register and request fields.
  wire cur_valid;
  wire cur_take;
  wire [ReqW-1:0] cur_data;
{%- if merges %}

  // The merge stage's first register is the input register: its pair compares read the
  // request as it comes, and its ready is a skid's flop.
  assign cur_valid   = req_valid_i;
  assign cur_data    = req_data_i;
  assign req_ready_o = cur_take;
{%- else %}

  {{ skid }} #(
    .Width (ReqW)
  ) u_req_skid (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (req_valid_i),
    .in_ready_o  (req_ready_o),
    .in_data_i   (req_data_i),
    .out_valid_o (cur_valid),
    .out_ready_i (cur_take),
    .out_data_o  (cur_data)
  );
{%- endif %}

  // ---------------------------------------------------------------------------------
  // Tag unit: lookups, victims, allocations; it builds the passes.
  wire q_in_ready;
  wire fill_room;
  wire q_push;
  wire [PassW-1:0] q_in;
  wire alloc;
  wire [SlotW-1:0] alloc_slot;
  wire [LineAddrW-1:0] alloc_line;
  wire [Lines*GenW-1:0] gen_all;
  // Per-slot counters are packed vectors, not arrays: Verilator cannot schedule a
  // non-blocking write to an array element in a loop it does not unroll (over 64
  // iterations: 256 lines).
  reg [Lines*GenW-1:0] wr_q;  // fills written, per slot
  // MaxPending fills of the slot in flight, a clock late, so the tag unit's read of its
  // set's row starts at flops: it reads it in M_SET, two clocks or more after the
  // allocation that could have filled the slot (the register has it a clock after), and
  // a fill written frees the slot a clock later than it could, which only delays a miss.
  reg [Lines-1:0] slot_full_q;
  wire [Lines-1:0] slot_full_d;

  genvar gl;
  genvar gs;
  generate
    for (gl = 0; gl < Lines; gl = gl + 1) begin : g_slot
      assign slot_full_d[gl] = gen_all[gl*GenW +: GenW] - wr_q[gl*GenW +: GenW] == MaxPending;
    end
  endgenerate

{%- if merges %}

  // The merge stage folds each request onto its distinct lines and hands them to the
  // tag unit {{ tag_ports }} at a time ({{ merge_module }}); a side FIFO carries each group's texels
  // past the tag unit to the expand stage ({{ expand_module }}), which builds the pass at
  // {{ ports }} texels from the tag unit's pass over the group's lines. The expand stage is
  // combinational, so passes reach the queue in the clocks the MSHR bookkeeping below
  // counts on. A group's side word leaves with the group's last pass.
  localparam integer TReqW = {{ treq_w }};
  localparam integer KPassW = {{ kpass_w }};
  localparam integer SideW = {{ side_w }};
  localparam integer SideDepth = {{ side_depth }};
  localparam integer KPassLastLsb = {{ kpass_last_lsb }};
  wire mg_valid;
  wire mg_ready;
  wire [TReqW-1:0] mg_tag;
  wire [SideW-1:0] mg_side;
  wire tq_ready;
  wire sd_in_ready;
  wire sd_valid;
  wire [SideW-1:0] sd_data;
  wire [KPassW-1:0] k_pass;
  wire unused_sd_valid = sd_valid;  // a pass leaves only with its group's side word there

  {{ merge_module }} u_merge (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (cur_valid),
    .in_ready_o  (cur_take),
    .in_data_i   (cur_data),
    .out_valid_o (mg_valid),
    .out_ready_i (mg_ready),
    .tag_data_o  (mg_tag),
    .side_data_o (mg_side)
  );

  assign mg_ready = tq_ready && sd_in_ready;

  {{ fifo }} #(
    .Width (SideW),
    .Depth (SideDepth)
  ) u_side (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (mg_valid && tq_ready),
    .in_ready_o  (sd_in_ready),
    .in_data_i   (mg_side),
    .out_valid_o (sd_valid),
    .out_ready_i (q_push && k_pass[KPassLastLsb]),
    .out_data_o  (sd_data)
  );

  {{ expand_module }} u_expand (
    .kpass_i (k_pass),
    .side_i  (sd_data),
    .pass_o  (q_in)
  );
{%- endif %}

  {{ tags_module }} #(
    .GenW (GenW)
  ) u_tags (
    .clk_i        (clk_i),
    .{{ rst.port }}{{ rst.pad }}       ({{ rst.port }}),
{%- if merges %}
    .req_valid_i  (mg_valid && sd_in_ready),
    .req_ready_o  (tq_ready),
    .req_data_i   (mg_tag),
    .pass_valid_o (q_push),
    .pass_ready_i (q_in_ready),
    .pass_data_o  (k_pass),
{%- else %}
    .req_valid_i  (cur_valid),
    .req_ready_o  (cur_take),
    .req_data_i   (cur_data),
    .pass_valid_o (q_push),
    .pass_ready_i (q_in_ready),
    .pass_data_o  (q_in),
{%- endif %}
    .alloc_o      (alloc),
    .alloc_slot_o (alloc_slot),
    .alloc_line_o (alloc_line),
    .fill_room_i  (fill_room),
    .slot_full_i  (slot_full_q),
    .gen_o        (gen_all)
  );

  // Queued passes per slot count up two clocks after the push (the pass's slots decoded
  // into ref_inc_q, then the counters step). No pass leaves in the three clocks before an
  // allocation (RUN stopping at the miss, M_SET, M_VICT), so every pass queued before it
  // is counted when its old readers are read, a clock after it; a pass that leaves with
  // the allocation is not, and reads the new line (see mshr_old_q). A pass's reads are
  // more clocks from its push (the skids, the plan and the queue), so its count goes up
  // before it comes down.
  reg push_q;
  reg [PassW-1:0] push_data_q;
  wire [Lines-1:0] ref_inc;
  reg [Lines-1:0] ref_inc_q;
  reg [Lines*RefW-1:0] ref_q;  // queued passes that read each slot

  // Per slot, a compare with its constant (an indexed write in a loop builds the bit
  // offsets with carry chains).
  generate
    for (gl = 0; gl < Lines; gl = gl + 1) begin : g_ref_inc
      localparam [SlotW-1:0] Line = gl;
      wire [Ports-1:0] at;
      for (gs = 0; gs < Ports; gs = gs + 1) begin : g_port
        assign at[gs] = push_data_q[PassMaskLsb + gs] &&
                        push_data_q[PassTexelsLsb + (Ports - 1 - gs) * TexW + TexSlotLsb +: SlotW] == Line;
      end
      assign ref_inc[gl] = push_q && (|at);
    end
  endgenerate

  // ---------------------------------------------------------------------------------
  // Pass queue: tags run up to QueueDepth passes ahead of the data reads. A skid on
  // each side keeps the queue's storage (its write enables and its read multiplexer)
  // between registers; between the first skid and the queue, the plan works out which
  // bank round reads each texel's word ({{ plan_module }}).
{%- if queue_fifo != fifo %}
  // At this depth the queue is {{ queue_fifo }}: a block RAM read ahead into a few flop
  // entries.
{%- endif %}
  wire pw_valid;
  wire pw_ready;
  wire [PassW-1:0] pw_data;
  wire qw_valid;
  wire qw_ready;
  wire [PlanW-1:0] qw_data;
  wire qr_valid;
  wire qr_ready;
  wire [PlanW-1:0] qr_data;
  wire q_out_valid;
  reg q_pop;
  wire [PlanW-1:0] q_out;
  // The head pass's slots again, inverted, beside it in the out skid: one copy drives
  // the slots' decode (every line), the pass's own drives the MSHR compares and s1, so
  // neither net reaches both (one flop for both: a 3.95 ns net on the default TMU).
  // (Synthesis merges flops with the same input: `keep` on a reg marks only its wire, and
  // on one copy's block it keeps that one and merges the other into it; the inversion
  // keeps the copy apart.)
  localparam integer SlotsW = Ports * SlotW;
  wire [SlotsW-1:0] qr_slots_n;
  wire [SlotsW-1:0] q_slots_n;

  {{ skid }} #(
    .Width (PassW)
  ) u_pass_in_skid (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (q_push),
    .in_ready_o  (q_in_ready),
    .in_data_i   (q_in),
    .out_valid_o (pw_valid),
    .out_ready_i (pw_ready),
    .out_data_o  (pw_data)
  );

  {{ plan_module }} #(
    .PassW (PassW),
    .PlanW (PlanW)
  ) u_plan (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (pw_valid),
    .in_ready_o  (pw_ready),
    .in_data_i   (pw_data),
    .out_valid_o (qw_valid),
    .out_ready_i (qw_ready),
    .out_data_o  (qw_data)
  );

  {{ queue_fifo }} #(
    .Width (PlanW),
    .Depth (QueueDepth)
  ) u_pass_queue (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (qw_valid),
    .in_ready_o  (qw_ready),
    .in_data_i   (qw_data),
    .out_valid_o (qr_valid),
    .out_ready_i (qr_ready),
    .out_data_o  (qr_data)
  );

  generate
    for (gs = 0; gs < Ports; gs = gs + 1) begin : g_slot_copy
      assign qr_slots_n[gs*SlotW +: SlotW] = ~qr_data[PlanPassLsb + PassTexelsLsb + (Ports - 1 - gs) * TexW + TexSlotLsb +: SlotW];
    end
  endgenerate

  {{ skid }} #(
    .Width (SlotsW + PlanW)
  ) u_pass_out_skid (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (qr_valid),
    .in_ready_o  (qr_ready),
    .in_data_i   ({qr_slots_n, qr_data}),
    .out_valid_o (q_out_valid),
    .out_ready_i (q_pop),
    .out_data_o  ({q_slots_n, q_out})
  );

  // ---------------------------------------------------------------------------------
  // Fill unit: requests go out in allocation order; beats come back in that order.
  wire mreq_in_ready;
  wire trk_in_ready;
  wire trk_valid;
  wire [SlotW-1:0] trk_slot;
  wire [LineAddrW-1:0] mreq_line;
  reg [BeatW-1:0] beat_q;
  reg [BeatW-1:0] beat_d;
  wire [Lines-1:0] wr_inc;  // a fill completes: its slot's generation is written
  reg trk_pop;
  wire beat_in;
  // A beat is written to the banks a clock after it is taken, from these registers, so
  // that the response handshake drives no bank enables.
  reg fill_valid_q;
  reg fill_last_q;
  reg [BeatW-1:0] fill_beat_q;
  reg [SlotW-1:0] fill_slot_q;
  // The slot again, inverted, for the banks' write addresses alone: the banks' block
  // RAMs and the fill counters behind wr_inc are far apart, and one flop driving both
  // put a 4.5 ns net in front of the counters. (Inverted, as the slots' copy above, so
  // that synthesis keeps it apart.)
  reg [SlotW-1:0] bank_slot_nq;
  wire [SlotW-1:0] bank_slot = ~bank_slot_nq;
  reg [{{ bus_bits - 1 }}:0] fill_data_q;

  assign fill_room = mreq_in_ready & trk_in_ready;
  assign beat_in   = mem_rsp_valid_i & mem_rsp_ready_o;

  {{ fifo }} #(
    .Width (LineAddrW),
    .Depth (MshrEntries)
  ) u_mem_req_queue (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (alloc),
    .in_ready_o  (mreq_in_ready),
    .in_data_i   (alloc_line),
    .out_valid_o (mem_req_valid_o),
    .out_ready_i (mem_req_ready_i),
    .out_data_o  (mreq_line)
  );

  // MSHRs: fills in flight, oldest first, in a ring. Each holds the slot it writes and
  // how many queued passes must still read that slot's previous generation; passes retire
  // in order, so the slot's next that many retirements are theirs.
{%- if mshr_slot_logic %}
  (* ram_style = "logic" *)
{%- endif %}
  reg [SlotW-1:0] mshr_slot_q [0:MshrEntries-1];
  reg [RefW-1:0] mshr_old_q [0:MshrEntries-1];
  // Per entry, mshr_old_q is zero: kept beside the count so that the fill's go is a
  // one-bit select, not a select of counts and a compare.
  reg [MshrEntries-1:0] mshr_free_q;
  reg [MshrPtrW-1:0] mshr_head_q;
  reg [MshrPtrW-1:0] mshr_next_q;  // the entry after the head
  reg [MshrPtrW-1:0] mshr_tail_q;
  reg [MshrCntW-1:0] mshr_cnt_q;
  reg fill_go_q;
  // An allocation's count of old readers is written two clocks after it, from
  // registers (the slot's count is read in the first); until then the entry holds a
  // non-zero count and takes no reads off it, so its fill waits.
  localparam [RefW-1:0] OldCounting = {{ "{" }}{(RefW-1){1'b0}}, 1'b1};
  reg new_q;
  reg new2_q;
  reg [MshrPtrW-1:0] new_idx_q;
  reg [SlotW-1:0] new_slot_q;
  reg [RefW-1:0] new_ref_q;  // the slot's count a clock after the allocation
  reg new_dec_q;  // and its reads that clock
  // and its reads the clock after: the pass in s1 read the new slot (new_m_q) and was
  // done then (s1_done_q), an AND of two flops where it is used rather than a flop
  // behind the slot's 64:1 select and the issue decision.
  reg s1_done_q;
  // Per entry: a pass that reads the entry's slot finished reading last clock (ref_dec_q
  // of the entry's slot, compared here rather than selected from all slots).
  reg [MshrEntries-1:0] mshr_dec_q;
  reg [MshrEntries-1:0] mshr_dec_d;

  assign trk_valid    = mshr_cnt_q != {MshrCntW{1'b0}};
  assign trk_in_ready = mshr_cnt_q != MshrFull;
  assign trk_slot     = mshr_slot_q[mshr_head_q];

  assign mem_req_addr_o  = {mreq_line, {(32 - LineAddrW){1'b0}}};
  // The fill at the head waits until every pass that reads the victim's old line has
  // read. The check is registered, for the head and for the entry behind it (taken when
  // this clock's beat ends the head's fill): a live entry's count only falls, so a check
  // a clock old can be late by that clock, never wrong.
  wire head_go = trk_valid && mshr_free_q[mshr_head_q];
  // Two or more fills in flight (never, with one entry).
  wire two_fills = mshr_cnt_q != {MshrCntW{1'b0}} && mshr_cnt_q != MshrOne;
  wire next_go = two_fills && mshr_free_q[mshr_next_q];
  assign mem_rsp_ready_o = fill_go_q;

  // Each beat's words go to distinct banks (checked at elaboration).
  reg [Banks-1:0] bank_we;
  reg [BankAddrW-1:0] bank_waddr [0:Banks-1];
  reg [WordW-1:0] bank_wdata [0:Banks-1];

  // Each bank takes one word of a beat, always the same one (rendered per bank from
  // the bank mapping); the beat's number says whether it is this bank's turn.
  always @(*) begin : b_fill
    beat_d    = beat_q;
    trk_pop   = 1'b0;
    if (beat_in) begin
      beat_d = beat_q + 1'b1;
      if (beat_q == LastBeat) begin
        beat_d  = {BeatW{1'b0}};
        trk_pop = 1'b1;
      end
    end
{%- for f in fill_banks %}
    bank_we[{{ f.bank }}] = fill_valid_q && bank_of({{ f.off }}) == {{ f.bank_lit }};
    bank_waddr[{{ f.bank }}] = bank_addr(bank_slot, {{ f.off }});
    bank_wdata[{{ f.bank }}] = fill_data_q[{{ f.word }}*WordW +: WordW];
{%- endfor %}
  end

  // Per slot, a compare with its constant (wr_inc[fill_slot_q] as an indexed write builds
  // the bit offset with a carry chain, which a placed path ran through).
  generate
    for (gl = 0; gl < Lines; gl = gl + 1) begin : g_wr_inc
      localparam [SlotW-1:0] Line = gl;
      assign wr_inc[gl] = fill_valid_q && fill_last_q && fill_slot_q == Line;
    end
  endgenerate

  // ---------------------------------------------------------------------------------
  // Data stage 1: the head pass waits for its lines, then reads them, one word per bank
  // per clock; a bank asked for two words takes more clocks. The plan says which round
  // reads each texel's word and how many rounds the pass takes.
  reg s1_valid_q;
{%- if addr_reg %}
  reg [PassW-1:0] s1_q;  // the pass alone: the rounds load srow_q, the counts more_q
  // Texel i's round, one-hot, shifted down a round at each issue: with the read's address
  // registered (fast clocks), the texels' serve flags come from flops, not from a compare
  // with a round count at the head of that clock's path.
  reg [Ports-1:0] srow_q [0:Ports-1];
  localparam [Ports-1:0] OneRound = 1;
{%- else %}
  reg [PlanW-1:0] s1_q;
  reg [RoundW-1:0] round_q;  // the round of the pass in s1
{%- endif %}
  reg [Ports-1:0] more_q;  // bit k: more than k + 1 rounds left
  reg s1_load;
  reg s1_done;
  reg issue;
  reg [Ports-1:0] serve;
  reg complete;  // this round finishes the request
  reg [Lines-1:0] ref_dec;
  // Reads done count down a clock later, everywhere at once: a fill then starts a clock
  // later than it could, never earlier.
  reg [Lines-1:0] ref_dec_q;
  reg [CreditW-1:0] credit_q;
  reg [CreditW-1:0] credit_d;
  wire out_pop;

  wire [PassW-1:0] s1_pass = s1_q[PlanPassLsb +: PassW];
  wire s1_last = s1_pass[PassLastLsb];
  wire [CountW-1:0] s1_hits = s1_pass[PassHitsLsb +: CountW];
  wire [CountW-1:0] s1_misses = s1_pass[PassMissesLsb +: CountW];
  wire [Ports-1:0] s1_mask = s1_pass[PassMaskLsb +: Ports];
  reg [SlotW-1:0] s1_slot [0:Ports-1];
  reg [OffW-1:0] s1_off [0:Ports-1];
  reg [BankW-1:0] s1_bank [0:Ports-1];
  reg [BankAddrW-1:0] s1_addr [0:Ports-1];
{%- if !addr_reg %}
  reg [RoundW-1:0] s1_round [0:Ports-1];
{%- endif %}
  reg [Banks-1:0] rd_en;
  reg [BankAddrW-1:0] rd_addr [0:Banks-1];
{%- if cls.on %}
  reg [1:0] s1_class [0:Ports-1];
  reg [Ports-1:0] pt_en;  // port (lane, class) reads this round
  reg [IndexW-1:0] pt_q [0:Ports-1];  // ... the bank of its class it reads
  reg [BankAddrW-1:0] pt_addr [0:Ports-1];  // ... and where
{%- endif %}
  // Passes load into s1 in order and fills complete in allocation order, so the pass in
  // s1 may read its lines once every fill allocated before it left the tag unit is
  // written: the earlier passes' fills were (they have read), and its own are the next
  // Fills to complete. avail_q counts completed fills less those of the passes loaded.
  reg [AvailW-1:0] avail_q;
  wire lines_ready = !avail_q[AvailW-1];
  // As a pass loads, avail_q + done - (its fills) in one carry chain, its carry-in 1:
  // -f is ~f + 1, and -f + 1 is ~(f - 1), where f - 1 on the few
  // fill bits is LUTs (two chains in a row, fill_last_q to avail_q, were the default
  // TMU's path, 10.3 ns).
  wire fill_done = fill_valid_q && fill_last_q;
  wire [FillsW-1:0] load_fills = q_out[PlanPassLsb + PassFillsLsb +: FillsW];
  localparam [FillsW-1:0] OneFill = 1;
  wire [FillsW-1:0] load_fills_m1 = load_fills - OneFill;
  wire [AvailW-1:0] neg_fills = ~{{ "{" }}{(AvailW-FillsW){1'b0}}, load_fills};
  wire [AvailW-1:0] neg_fills_p1 = (load_fills == {FillsW{1'b0}}) ? {AvailW{1'b0}}
                                                               : ~{{ "{" }}{(AvailW-FillsW){1'b0}}, load_fills_m1};
  wire last_round = !more_q[0];
  // What the pass in s1 reads, worked out as it loads, so that its finish only gates it
  // (the slots and the MSHR compares are a clock away from the fills' bookkeeping): its
  // slots, one-hot, and per MSHR entry whether it reads the entry's slot. The entry an
  // allocation writes holds its new slot a clock later (mshr_slot_q). A pass that loads
  // then compares with it; one that stays gets its match a clock later again, from the
  // pass's decode at the new slot taken into a flop (new_m_q), so no slot select sits in
  // front of the match registers. The entry's count of old readers, written then, takes
  // that clock's reads from new_rd_q, not from its match.
  reg [Lines-1:0] s1_dec_q;
  wire [Lines-1:0] load_dec;
  reg [MshrEntries-1:0] s1_match_q;
  wire [MshrEntries-1:0] s1_match_d;
  wire [MshrEntries-1:0] s1_match;  // s1_match_q with the entry written two clocks ago
  reg [MshrEntries-1:0] new_at_q;  // that entry, one-hot (new_idx_q when new_q)
  reg [MshrEntries-1:0] new_fix_q;  // ... a clock later, when s1 did not load
  reg new_m_q;  // the pass in s1 reads the new slot
  wire new_rd = new_m_q && s1_done_q;
  wire new_match = s1_dec_q[new_slot_q];
  wire [SlotW-1:0] load_slot [0:Ports-1];
  wire [SlotW-1:0] dec_slot [0:Ports-1];  // the decode's copy
  wire [Ports-1:0] load_mask = q_out[PlanPassLsb + PassMaskLsb +: Ports];

  generate
    for (gs = 0; gs < Ports; gs = gs + 1) begin : g_load_slot
      assign load_slot[gs] = q_out[PlanPassLsb + PassTexelsLsb + (Ports - 1 - gs) * TexW + TexSlotLsb +: SlotW];
      assign dec_slot[gs]  = ~q_slots_n[gs*SlotW +: SlotW];
    end
  endgenerate

  // The lines the loading pass reads, a compare with each line's constant (a loop that
  // sets load_dec[dec_slot[i]] builds the bit offsets with carry chains).
  generate
    for (gl = 0; gl < Lines; gl = gl + 1) begin : g_load_dec
      localparam [SlotW-1:0] Line = gl;
      wire [Ports-1:0] at;
      for (gs = 0; gs < Ports; gs = gs + 1) begin : g_port
        assign at[gs] = load_mask[gs] && dec_slot[gs] == Line;
      end
      assign load_dec[gl] = |at;
    end
  endgenerate

  genvar gm;
  generate
    for (gm = 0; gm < MshrEntries; gm = gm + 1) begin : g_s1_match
      wire [Ports-1:0] hit;
      for (gs = 0; gs < Ports; gs = gs + 1) begin : g_port
        assign hit[gs] = load_mask[gs] && load_slot[gs] == mshr_slot_q[gm];
      end
      assign s1_match[gm]   = new_fix_q[gm] ? new_m_q : s1_match_q[gm];
      assign s1_match_d[gm] = s1_load ? |hit : s1_match[gm];
    end
  endgenerate

  always @(*) begin : b_read
    integer i;
    integer b;
{%- if cls.on %}
    integer c;
    integer p;
{%- endif %}
    for (i = 0; i < Ports; i = i + 1) begin
      s1_slot[i]  = s1_pass[PassTexelsLsb + (Ports - 1 - i) * TexW + TexSlotLsb +: SlotW];
      s1_off[i]   = s1_pass[PassTexelsLsb + (Ports - 1 - i) * TexW +: OffW];
      s1_bank[i]  = bank_of(s1_off[i]);
      s1_addr[i]  = bank_addr(s1_slot[i], s1_off[i]);
{%- if addr_reg %}
      serve[i]    = s1_mask[i] && srow_q[i][0];
{%- else %}
      s1_round[i] = s1_q[PlanRoundLsb + i * RoundW +: RoundW];
      serve[i]    = s1_mask[i] && s1_round[i] == round_q;
{%- endif %}
    end
{%- if cls.on %}
    // A port's served texels all ask for one word of one bank: its index and address
    // are the OR of theirs.
    for (p = 0; p < Ports; p = p + 1) begin
      pt_en[p]   = 1'b0;
      pt_q[p]    = {IndexW{1'b0}};
      pt_addr[p] = {BankAddrW{1'b0}};
    end
    for (i = 0; i < Ports; i = i + 1) begin
      s1_class[i] = class_of(s1_bank[i]);
      for (c = 0; c < 4; c = c + 1) begin
        p = {i[31:2], c[1:0]};
        if (serve[i] && s1_class[i] == c[1:0]) begin
          pt_en[p]   = 1'b1;
          pt_q[p]    = pt_q[p] | index_of(s1_bank[i]);
          pt_addr[p] = pt_addr[p] | s1_addr[i];
        end
      end
    end
    // One word per bank a round: the ports that read a bank all ask for one word, so its
    // address is the OR of theirs.
    rd_en = {Banks{1'b0}};
    for (b = 0; b < Banks; b = b + 1) begin
      rd_addr[b] = {BankAddrW{1'b0}};
      for (p = 0; p < Ports; p = p + 1) begin
        if (p[1:0] == class_of(b[BankW-1:0]) && pt_en[p] && pt_q[p] == index_of(b[BankW-1:0])) begin
          rd_en[b]   = 1'b1;
          rd_addr[b] = rd_addr[b] | pt_addr[p];
        end
      end
    end
{%- else %}
    // One word per bank a round: the texels served in a bank all ask for one word, so
    // its address is the OR of theirs.
    rd_en = {Banks{1'b0}};
    for (b = 0; b < Banks; b = b + 1) begin
      rd_addr[b] = {BankAddrW{1'b0}};
      for (i = 0; i < Ports; i = i + 1) begin
        if (serve[i] && s1_bank[i] == b[BankW-1:0]) begin
          rd_en[b]   = 1'b1;
          rd_addr[b] = rd_addr[b] | s1_addr[i];
        end
      end
    end
{%- endif %}
    complete = s1_last && last_round;
    issue    = s1_valid_q && lines_ready && (!complete || credit_q != {CreditW{1'b0}});
    s1_done  = issue && last_round;
    s1_load  = q_out_valid && (!s1_valid_q || s1_done);
    q_pop    = s1_load;
    ref_dec    = s1_done ? s1_dec_q : {Lines{1'b0}};
    mshr_dec_d = s1_done ? s1_match : {MshrEntries{1'b0}};
    credit_d = credit_q - {{ "{" }}{(CreditW-1){1'b0}}, issue && complete} + {{ "{" }}{(CreditW-1){1'b0}}, out_pop};
  end

  // Both sums from flops, the pass's load picking one after the chains: s1_load comes
  // out of the read plan's issue decision, too late for a carry chain behind it.
  wire [AvailW-1:0] avail_step = fill_done ? neg_fills_p1 : neg_fills;
  wire [AvailW-1:0] avail_pop = avail_q + avail_step + {{ "{" }}{(AvailW-1){1'b0}}, 1'b1};
  wire [AvailW-1:0] avail_keep = avail_q + {{ "{" }}{(AvailW-1){1'b0}}, fill_done};
  wire [AvailW-1:0] avail_d = s1_load ? avail_pop : avail_keep;

{%- if addr_reg %}
  // The read's stage A: the banks' enables and addresses registered as the round
  // issues (CachePipe::addr_reg: the round compare and the port and bank selects are
  // longer than the tag lookup), the RAMs read a clock later. A pass's reads done count
  // down at its issue, a clock before its last read; a fill of its slots writes the
  // banks four clocks after the issue at the soonest (the MSHR's count, its free flag,
  // the fill's go, a beat).
  reg sa_valid_q;
  reg sa_complete_q;
  reg [Ports-1:0] sa_serve_q;
{%- if cls.on %}
  reg [1:0] sa_class_q [0:Ports-1];
  reg [IndexW-1:0] sa_pt_q [0:Ports-1];
{%- else %}
  reg [BankW-1:0] sa_bank_q [0:Ports-1];
{%- endif %}
  reg [CountW-1:0] sa_hits_q;
  reg [CountW-1:0] sa_misses_q;
  reg [Banks-1:0] sa_rd_en_q;
  reg [BankAddrW-1:0] sa_rd_addr_q [0:Banks-1];
{%- endif %}
  wire [WordW-1:0] bank_rdata [0:Banks-1];

  genvar gb;
  generate
    for (gb = 0; gb < Banks; gb = gb + 1) begin : g_bank
      {{ bank_module }} #(
        .Width (WordW),
        .Depth (BankDepth),
        .AddrW (BankAddrW)
      ) u_bank (
        .clk_i   (clk_i),
        .we_i    (bank_we[gb]),
        .waddr_i (bank_waddr[gb]),
        .wdata_i (bank_wdata[gb]),
        .re_i    ({{ rd.valid }} & {{ rd.en }}[gb]),
        .raddr_i ({{ rd.addr }}[gb]),
        .rdata_o (bank_rdata[gb])
      );
    end
  endgenerate

  // ---------------------------------------------------------------------------------
{%- if ram_out_reg %}
  // Data stages 2 and 3: the banks read in two clocks (RAM, then its output register, as
  // the clock target asks); stage 3's bank outputs land in the response, and a complete
  // one enters the output queue, for which stage 1 holds a credit.
{%- else %}
  // Data stage 2: the banks read in one clock (the clock target leaves room for the RAM's
  // clock-to-out); bank outputs land in the response, and a complete one enters the
  // output queue, for which stage 1 holds a credit.
{%- endif %}
  reg s2_valid_q;
  reg s2_complete_q;
  reg [Ports-1:0] s2_serve_q;
{%- if cls.on %}
  reg [1:0] s2_class_q [0:Ports-1];
  reg [IndexW-1:0] s2_pt_q [0:Ports-1];
{%- else %}
  reg [BankW-1:0] s2_bank_q [0:Ports-1];
{%- endif %}
  reg [CountW-1:0] s2_hits_q;
  reg [CountW-1:0] s2_misses_q;
{%- if ram_out_reg %}
  reg s3_valid_q;
  reg s3_complete_q;
  reg [Ports-1:0] s3_serve_q;
{%- if cls.on %}
  reg [1:0] s3_class_q [0:Ports-1];
  reg [IndexW-1:0] s3_pt_q [0:Ports-1];
{%- else %}
  reg [BankW-1:0] s3_bank_q [0:Ports-1];
{%- endif %}
  reg [CountW-1:0] s3_hits_q;
  reg [CountW-1:0] s3_misses_q;
{%- endif %}
  reg [WordW-1:0] acc_q [0:Ports-1];
  reg [WordW-1:0] acc_d [0:Ports-1];
  reg [RspW-1:0] out_in;
  reg out_push;

{%- if cls.on %}
  reg [WordW-1:0] pt_data [0:Ports-1];  // port (lane, class): its bank's word
{%- endif %}

  always @(*) begin : b_collect
    integer i;
{%- if cls.on %}
    integer p;
    for (p = 0; p < Ports; p = p + 1) begin
      pt_data[p] = bank_rdata[bank_join(p[1:0], {{ collect }}_pt_q[p])];
    end
{%- endif %}
    out_push = {{ collect }}_valid_q && {{ collect }}_complete_q;
    for (i = 0; i < Ports; i = i + 1) begin
      acc_d[i] = acc_q[i];
      if ({{ collect }}_valid_q && {{ collect }}_serve_q[i]) begin
{%- if cls.on %}
        acc_d[i] = pt_data[{i[31:2], {{ collect }}_class_q[i]}];
{%- else %}
        acc_d[i] = bank_rdata[{{ collect }}_bank_q[i]];
{%- endif %}
      end
    end
    out_in = {{ "{" }}{{ collect }}_misses_q, {{ collect }}_hits_q{% for i in port_list_rev %}, acc_d[{{ i }}]{% endfor %}};
    if (out_push) begin
      for (i = 0; i < Ports; i = i + 1) begin
        acc_d[i] = {WordW{1'b0}};
      end
    end
  end

  // Stage 1 issues a completing read only with a credit, so this queue always has room
  // and its in_ready needs no one to look at it.
  wire unused_out_in_ready;

  {{ fifo }} #(
    .Width (RspW),
    .Depth (OutDepth)
  ) u_rsp_queue (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (out_push),
    .in_ready_o  (unused_out_in_ready),
    .in_data_i   (out_in),
    .out_valid_o (rsp_valid_o),
    .out_ready_i (rsp_ready_i),
    .out_data_o  (rsp_data_o)
  );

  assign out_pop = rsp_valid_o & rsp_ready_i;

  // ---------------------------------------------------------------------------------
  // Registers.
  always @(posedge clk_i{{ rst.edge }}) begin : b_ctrl
    integer i;
    if ({{ rst.active }}) begin
      mshr_head_q <= {MshrPtrW{1'b0}};
      new_q       <= 1'b0;
      new_at_q    <= {MshrEntries{1'b0}};
      new_fix_q   <= {MshrEntries{1'b0}};
      new2_q      <= 1'b0;
      mshr_dec_q  <= {MshrEntries{1'b0}};
      mshr_next_q <= SecondMshr;
      mshr_tail_q <= {MshrPtrW{1'b0}};
      mshr_cnt_q  <= {MshrCntW{1'b0}};
      fill_go_q   <= 1'b0;
      fill_valid_q <= 1'b0;
      push_q     <= 1'b0;
      ref_inc_q  <= {Lines{1'b0}};
      ref_dec_q  <= {Lines{1'b0}};
      beat_q     <= {BeatW{1'b0}};
      s1_valid_q <= 1'b0;
      s1_done_q  <= 1'b0;
      avail_q    <= {AvailW{1'b0}};
{%- if addr_reg %}
      for (i = 0; i < Ports; i = i + 1) begin
        srow_q[i] <= {Ports{1'b0}};
      end
{%- else %}
      round_q    <= {RoundW{1'b0}};
{%- endif %}
      more_q     <= {Ports{1'b0}};
      credit_q   <= OutCredits;
{%- if addr_reg %}
      sa_valid_q <= 1'b0;
{%- endif %}
      s2_valid_q <= 1'b0;
{%- if ram_out_reg %}
      s3_valid_q <= 1'b0;
{%- endif %}
      ref_q <= {Lines*RefW{1'b0}};
      wr_q  <= {Lines*GenW{1'b0}};
      slot_full_q <= {Lines{1'b0}};
      for (i = 0; i < MshrEntries; i = i + 1) begin
        mshr_old_q[i] <= {RefW{1'b0}};
      end
      mshr_free_q <= {MshrEntries{1'b1}};
      // Inactive texels read as zero: the response collector starts clear.
      for (i = 0; i < Ports; i = i + 1) begin
        acc_q[i] <= {WordW{1'b0}};
      end
    end else begin
      push_q     <= q_push;
      ref_inc_q  <= ref_inc;
      ref_dec_q  <= ref_dec;
      slot_full_q <= slot_full_d;
      if (alloc) begin
        mshr_tail_q <= (mshr_tail_q == LastMshr) ? {MshrPtrW{1'b0}} : mshr_tail_q + 1'b1;
      end
      if (trk_pop) begin
        mshr_head_q <= mshr_next_q;
        mshr_next_q <= (mshr_next_q == LastMshr) ? {MshrPtrW{1'b0}} : mshr_next_q + 1'b1;
      end
      fill_go_q    <= trk_pop ? next_go : head_go;
      fill_valid_q <= beat_in;
      mshr_cnt_q <= mshr_cnt_q + {{ "{" }}{(MshrCntW-1){1'b0}}, alloc} - {{ "{" }}{(MshrCntW-1){1'b0}}, trk_pop};
      new_q      <= alloc;
      for (i = 0; i < MshrEntries; i = i + 1) begin
        new_at_q[i] <= alloc && mshr_tail_q == i[MshrPtrW-1:0];
      end
      new_fix_q  <= s1_load ? {MshrEntries{1'b0}} : new_at_q;
      new2_q     <= new_q;
      mshr_dec_q <= mshr_dec_d;
      for (i = 0; i < MshrEntries; i = i + 1) begin
        if (alloc && mshr_tail_q == i[MshrPtrW-1:0]) begin
          mshr_old_q[i]  <= OldCounting;
          mshr_free_q[i] <= 1'b0;
        end else if (new2_q && new_idx_q == i[MshrPtrW-1:0]) begin
          // Every reader of the victim queued at the allocation reads a previous
          // generation. A pass pushed in the allocation's clock (M_ACT finishing its
          // request) or later reads the new line, and counts in ref_q three clocks after
          // its push, after new_ref_q's read; none was pushed in the three clocks before
          // (RUN stopping at the miss, M_SET, M_VICT), and one pushed before them counts
          // by the allocation's clock. So the slot's count a clock after the allocation,
          // less the reads of that clock and this one, is the allocation's count by now.
          mshr_old_q[i]  <= new_ref_q - {{ "{" }}{(RefW-1){1'b0}}, new_dec_q} - {{ "{" }}{(RefW-1){1'b0}}, new_rd};
          mshr_free_q[i] <= new_ref_q == {{ "{" }}{(RefW-1){1'b0}}, new_dec_q} + {{ "{" }}{(RefW-1){1'b0}}, new_rd};
        end else if (new_q && new_idx_q == i[MshrPtrW-1:0]) begin
          mshr_old_q[i]  <= OldCounting;
          mshr_free_q[i] <= 1'b0;
        end else if (!mshr_free_q[i] && mshr_dec_q[i]) begin
          mshr_old_q[i]  <= mshr_old_q[i] - 1'b1;
          mshr_free_q[i] <= mshr_old_q[i] == OldCounting;
        end
      end
      beat_q     <= beat_d;
      s1_valid_q <= s1_load | (s1_valid_q & ~s1_done);
      s1_done_q  <= s1_done;
      avail_q    <= avail_d;
      if (s1_load) begin
{%- if addr_reg %}
        for (i = 0; i < Ports; i = i + 1) begin
          srow_q[i] <= OneRound << q_out[PlanRoundLsb + i * RoundW +: RoundW];
        end
{%- else %}
        round_q <= {RoundW{1'b0}};
{%- endif %}
        more_q  <= q_out[PlanMoreLsb +: Ports];
      end else if (issue) begin
{%- if addr_reg %}
        for (i = 0; i < Ports; i = i + 1) begin
          srow_q[i] <= srow_q[i] >> 1;
        end
{%- else %}
        round_q <= round_q + 1'b1;
{%- endif %}
        more_q  <= more_q >> 1;
      end
      credit_q   <= credit_d;
{%- if addr_reg %}
      sa_valid_q <= issue;
{%- endif %}
      s2_valid_q <= {{ rd.valid }};
{%- if ram_out_reg %}
      s3_valid_q <= s2_valid_q;
{%- endif %}
      for (i = 0; i < Ports; i = i + 1) begin
        acc_q[i] <= acc_d[i];
      end
      for (i = 0; i < Lines; i = i + 1) begin
        // Up or down by one when exactly one of the two happens: one carry chain whose
        // operand comes from a flop, with the pushed pass's slot decode on its enable.
        if (ref_inc_q[i] != ref_dec_q[i]) begin
          ref_q[i*RefW +: RefW] <= ref_q[i*RefW +: RefW] + {{ "{" }}{(RefW-1){ref_dec_q[i]}}, 1'b1};
        end
        if (wr_inc[i]) begin
          wr_q[i*GenW +: GenW] <= wr_q[i*GenW +: GenW] + 1'b1;
        end
      end
    end
  end

  // Datapath registers: no reset.
  always @(posedge clk_i) begin : b_data
    integer i;
    push_data_q <= q_in;
    if (s1_load) begin
      s1_dec_q <= load_dec;
    end
    s1_match_q <= s1_match_d;
    if (beat_in) begin
      fill_last_q <= trk_pop;
      fill_beat_q <= beat_q;
      fill_slot_q <= trk_slot;
      bank_slot_nq <= ~trk_slot;
      fill_data_q <= mem_rsp_data_i;
    end
    if (s1_load) begin
{%- if addr_reg %}
      s1_q <= q_out[PlanPassLsb +: PassW];
{%- else %}
      s1_q <= q_out;
{%- endif %}
    end
    if (alloc) begin
      mshr_slot_q[mshr_tail_q] <= alloc_slot;
      new_idx_q <= mshr_tail_q;
      new_slot_q <= alloc_slot;
    end
    if (new_q) begin
      new_ref_q <= ref_q[new_slot_q*RefW +: RefW];
      new_dec_q <= ref_dec_q[new_slot_q];
      new_m_q   <= new_match;
    end
{%- if addr_reg %}
    if (issue) begin
      sa_complete_q <= complete;
      sa_serve_q    <= serve;
      sa_hits_q     <= s1_hits;
      sa_misses_q   <= s1_misses;
      sa_rd_en_q    <= rd_en;
      for (i = 0; i < Ports; i = i + 1) begin
{%- if cls.on %}
        sa_class_q[i] <= s1_class[i];
        sa_pt_q[i]    <= pt_q[i];
{%- else %}
        sa_bank_q[i] <= s1_bank[i];
{%- endif %}
      end
      for (i = 0; i < Banks; i = i + 1) begin
        sa_rd_addr_q[i] <= rd_addr[i];
      end
    end
{%- endif %}
    if ({{ rd.valid }}) begin
      s2_complete_q <= {{ rd.complete }};
      s2_serve_q    <= {{ rd.serve }};
      s2_hits_q     <= {{ rd.hits }};
      s2_misses_q   <= {{ rd.misses }};
      for (i = 0; i < Ports; i = i + 1) begin
{%- if cls.on %}
        s2_class_q[i] <= {{ rd.class }}[i];
        s2_pt_q[i]    <= {{ rd.pt }}[i];
{%- else %}
        s2_bank_q[i] <= {{ rd.bank }}[i];
{%- endif %}
      end
    end
{%- if ram_out_reg %}
    if (s2_valid_q) begin
      s3_complete_q <= s2_complete_q;
      s3_serve_q    <= s2_serve_q;
      s3_hits_q     <= s2_hits_q;
      s3_misses_q   <= s2_misses_q;
      for (i = 0; i < Ports; i = i + 1) begin
{%- if cls.on %}
        s3_class_q[i] <= s2_class_q[i];
        s3_pt_q[i]    <= s2_pt_q[i];
{%- else %}
        s3_bank_q[i] <= s2_bank_q[i];
{%- endif %}
      end
    end
{%- endif %}
  end

endmodule
