{{ stamp }}
// {{ name }}: the texture cache's tag unit. It looks every texel of a request up, picks
// victims, allocates lines and builds the passes that the data side reads (seed 001; the
// rules are src/model/tex_cache.rs's, which this follows exactly).
//
// {{ sets }} set(s) x {{ ways }} way(s), {% if plru %}tree pseudo-LRU replacement (one bit per node of a
// binary tree over a set's ways, pointing at the half its next victim is in){% else %}{{ replacement }} replacement as an age matrix (one bit per pair
// of ways: "a is older than b"){% endif %}, {{ ports }} {% if merged %}lines per request: behind the merge stage, a request
// is a group of its request's distinct lines (one port a line, any of its texels'
// addresses), its first group starts the hit and miss counts from the request's active
// texels, and a later group's counts go on from there; the expand stage puts the texels
// back{% else %}texels per request{% endif %}.
//
// Pipeline, one request a clock when every texel hits:
//   L1      the request, in a skid register (its ready is a flop).
//   L2      tag compare: per texel, the way that holds its line (one-hot), its slot, and
//           which other texels share its line and its set.
//   RUN     hits in texel order up to the first miss join the pass being built; a request
//           whose texels all hit leaves here, and the next one comes in. The first miss's
//           line and set are taken into registers.
//   M_SET   the miss's set's valid, pinned and full bits and its ages are read into
//           registers (a row select by a flop's set index).
//   M_VICT  the victim (the lowest invalid way, else the oldest way the pass does not
//           use) is picked from those registers, and whether the texels left depend on it.
{%- if pick %}
//   M_PICK  the victim's checks (its slot may take a fill, the fill side has room) and
//           its slot, from the victim's register: over {{ ways }} ways the victim and its
//           checks take a clock each.
{%- endif %}
//   M_ACT   the victim is allocated, from registers; or the pass closes when every way
//           is in use (the request then continues in a new pass). The allocation is
//           forwarded into the lookups behind it, so the miss's texel and any texel of
//           the same line hit from then on, and a texel that hit the evicted line misses.
//           When no texel left depends on the victim (each is on the miss's line or hits
//           in another set), the request leaves from M_ACT and the next one loads: a
//           request with one miss takes {% if pick %}five{% else %}four{% endif %} clocks.
//           When the victim may not be refilled yet (its slot's fills are all in flight,
//           or the fill queue is full), or a closing pass cannot leave, M_SET reads the
//           set again, then M_VICT{% if pick %}, M_PICK{% endif %} and M_ACT again.
// Pins and age updates of a clock's hits land one clock later. M_SET adds RUN's hits in
// the set (c_pin_q) to the pins it reads. The ages M_SET reads lack only RUN's hits;
// those are pinned, so no victim depends on them.
// Combinational paths: none from the request side: req_ready_o is the L1 skid's flop,
// so the tag unit's decision to advance (which depends on pass_ready_i) stays inside it.
module {{ name }} #(
  // Bits of a slot's line generation: the top's (the pass layout below assumes them).
  parameter integer GenW = {{ gen_w }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire req_valid_i,
  output wire req_ready_o,
  input wire [{{ req_w - 1 }}:0] req_data_i,
  output wire pass_valid_o,
  input wire pass_ready_i,
  output wire [{{ pass_w - 1 }}:0] pass_data_o,
  output wire alloc_o,
  output wire [{{ slot_w - 1 }}:0] alloc_slot_o,
  output wire [{{ line_addr_w - 1 }}:0] alloc_line_o,
  input wire fill_room_i,
  input wire [{{ lines - 1 }}:0] slot_full_i,
  output wire [{{ lines * gen_w - 1 }}:0] gen_o
);

  localparam integer Ports = {{ ports }};
  localparam integer AddrW = {{ aw }};  // texel word address
  localparam integer OffW = {{ off_w }};  // word offset in a line
  localparam integer LineAddrW = {{ line_addr_w }};
  localparam integer SetW = {{ set_idx_w }};  // set index (one bit when there is one set)
  localparam integer TagW = {{ tag_w }};
  localparam integer Lines = {{ lines }};
{%- if ways > 1 %}
  localparam integer Sets = {{ sets }};
{%- endif %}
  localparam integer Ways = {{ ways }};
  localparam integer WayW = {{ way_idx_w }};  // way index (one bit when there is one way)
  localparam integer SlotW = {{ slot_w }};
  localparam integer ReqW = {{ req_w }};
  localparam integer ReqActLsb = {{ req_act_lsb }};
  localparam integer ReqInvLsb = {{ req_inv_lsb }};
{%- if merged %}
  // Behind the merge stage: the request's first group of lines, and its texels.
  localparam integer ReqFirstLsb = {{ req_first_lsb }};
  localparam integer ReqCountLsb = {{ req_count_lsb }};
{%- endif %}
  localparam integer CountW = {{ count_w }};
{%- for f in pass_fields %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer TexW = SlotW + OffW;  // {slot, off}: a texel of a pass
  localparam integer FillsW = {{ fills_w }};  // fills allocated while a pass is built
{%- if ways > 1 && plru %}
  localparam integer TreeW = {{ tree_w }};  // tree bits of a set
{%- elif ways > 1 %}
  localparam integer PairW = {{ pair_w }};  // age bits of a set
{%- endif %}
  // Copies of the advance flags: one per group of loads (g_adv).
  localparam integer AdvCopies = {{ adv_copies }};
{%- for g in adv_groups %}
  localparam integer {{ g.0 }} = {{ g.1 }};
{%- endfor %}
  // Tag unit states.
{%- for s in states %}
  localparam [{{ state_w - 1 }}:0] {{ s.0 }} = {{ state_w }}'d{{ s.1 }};
{%- endfor %}

  // Where a line lives: its set, its tag, and the slot of a way of a set.
  function [SetW-1:0] set_of(input [LineAddrW-1:0] line);
{%- if sets > 1 %}
    reg unused_tag;  // tag_of's bits
    begin
      unused_tag = ^line[LineAddrW-1:SetW];
      set_of     = line[SetW-1:0];
    end
{%- else %}
    reg unused_line;  // one set: no index bits
    begin
      unused_line = ^line;
      set_of      = 1'b0;
    end
{%- endif %}
  endfunction

  function [TagW-1:0] tag_of(input [LineAddrW-1:0] line);
{%- if sets > 1 %}
    reg unused_set;  // set_of's bits
    begin
      unused_set = ^line[SetW-1:0];
      tag_of     = line[LineAddrW-1:SetW];
    end
{%- else %}
    tag_of = line;
{%- endif %}
  endfunction

  function [SlotW-1:0] slot_of(input [SetW-1:0] set, input [WayW-1:0] way);
{%- if sets > 1 && ways > 1 %}
    slot_of = {set, way};
{%- elif sets > 1 %}
    reg unused_way;  // one way: the set is the slot
    begin
      unused_way = ^way;
      slot_of    = set;
    end
{%- else %}
    reg unused_set;  // one set: the way is the slot
    begin
      unused_set = ^set;
      slot_of    = way;
    end
{%- endif %}
  endfunction

  // A one-hot way as its index.
  function [WayW-1:0] way_index(input [Ways-1:0] onehot);
    integer w;
    begin
      way_index = {WayW{1'b0}};
      for (w = 0; w < Ways; w = w + 1) begin
        if (onehot[w]) begin
          way_index = way_index | w[WayW-1:0];
        end
      end
    end
  endfunction

  // ---------------------------------------------------------------------------------
  // Tag state. Valid, pinned and age bits are reset; tags and generations only matter
  // where valid (generations count allocations, and start at zero with the fills').
  reg [Lines-1:0] valid_q;
  reg [Lines-1:0] pin_q;  // used by the pass being built
  // Generations are a packed vector: Verilator cannot schedule a non-blocking write to
  // an array element in a loop it does not unroll (over 64 iterations: 256 lines).
  reg [Lines*GenW-1:0] gen_q;
{%- if ways > 1 && plru %}
  wire [TreeW-1:0] tree_q [0:Sets-1];  // per-set registers in g_tree
{%- elif ways > 1 %}
  wire [PairW-1:0] age_q [0:Sets-1];  // per-set registers in g_age
{%- endif %}
  assign gen_o = gen_q;

  // Control registers of the request being committed, and of the miss (its line and
  // set, and its set's bits, read in RUN and M_SET).
  reg [{{ state_w - 1 }}:0] state_q;
  reg [SetW-1:0] m_set_q;
  reg [LineAddrW-1:0] m_line_q;
  reg [Ports-1:0] m_line_eq_q;  // texels of the miss's line
  reg [Ports-1:0] m_set_eq_q;  // texels of the miss's set
  reg [Ways-1:0] s_valid_q;
  reg [Ways-1:0] s_pin_q;
  reg [Ways-1:0] s_full_q;
{%- if ways > 1 && plru %}
  wire [TreeW-1:0] s_tree;  // the set's tree in M_VICT
{%- elif ways > 1 %}
  wire [PairW-1:0] s_age;  // the set's ages in M_VICT
{%- endif %}
  reg [Ways-1:0] v_d;  // M_VICT's victim (one-hot)
  reg v_none_d;  // every way is pinned: close the pass
  reg rest_hit_d;  // every texel left hits, whichever way the miss takes
  reg [Ways-1:0] v_q;  // registered for M_ACT, and held for the lookups behind it
  reg v_none_q;
{%- if pick %}
  // M_PICK, a clock between M_VICT and M_ACT (the victim over {{ ways }} ways and the checks on
  // it do not fit one clock: CachePipe::victim_pick), decides for M_ACT from v_q, into
  // flops: whether it allocates (a victim, its slot free to take another fill, and room
  // on the fill side), and whether the request then leaves (every texel left hits
  // whatever the victim), so that M_ACT's handshakes start at flops. The fill side's
  // room is read in M_PICK, a clock before the allocation that takes it: allocations
  // are five clocks apart at the least, so that room is never one an allocation has
  // used.
{%- else %}
  // M_VICT decides for M_ACT, into flops: whether it allocates (a victim, its slot free
  // to take another fill, and room on the fill side), and whether the request then
  // leaves (every texel left hits whatever the victim), so that M_ACT's handshakes
  // start at flops. The fill side's room is read in M_VICT, a clock before the
  // allocation that takes it: allocations are four clocks apart at the least, so that
  // room is never one an allocation has used.
{%- endif %}
  reg alloc_ok_q;
  reg leave_ok_q;
  wire alloc = alloc_ok_q;
{%- if pick %}
  wire vict_ok = (state_q == MPick) && !v_none_q && (v_q & s_full_q) == {Ways{1'b0}} && fill_room_i;
  // The allocated slot, from M_VICT's victim in v_q as M_PICK ends (m_set_q holds from
  // M_SET on): a register of its own, so that the pass's texel slots and the fill side's
  // slot start at a flop, not at v_q's encoder behind its fan-out to every texel's
  // forwarding.
{%- else %}
  wire vict_ok = (state_q == MVict) && !v_none_d && (v_d & s_full_q) == {Ways{1'b0}} && fill_room_i;
  // The allocated slot, from M_VICT's victim as v_q loads (m_set_q holds from M_SET on):
  // a register of its own, so that the pass's texel slots and the fill side's slot start
  // at a flop, not at v_q's encoder behind its fan-out to every texel's forwarding.
{%- endif %}
  reg [SlotW-1:0] alloc_slot_q;
  wire [SlotW-1:0] alloc_slot = alloc_slot_q;
  // The miss's set, one-hot, a clock behind m_set_q: m_set_q holds from M_SET to the
  // allocation in M_ACT, so by then this is a flop, and the allocated slot, one-hot, is
  // one AND of it with the one-hot victim (slot = set * Ways + way).
  reg [{{ sets - 1 }}:0] m_sdec_q;
  wire inv_now;  // an invalidate leaves RUN this clock

  // The fill side's copy of the allocation flag (the MSHR's tail and entries, the new
  // slot's count): one flop driving both sides put a 2.8 ns net in front of the MSHR's
  // updates on the default cache. Inverted, so that synthesis keeps the two apart.
  reg alloc_out_nq;

  assign alloc_o      = ~alloc_out_nq;
  assign alloc_slot_o = alloc_slot;
  assign alloc_line_o = m_line_q;

  // ---------------------------------------------------------------------------------
  // L1: the request, in a skid register: whether L1 advances is worked out behind the
  // tag compare, and only the skid's own output register waits for it.
  wire l1_valid;
  wire [ReqW-1:0] l1_data;
  wire l1_take;

  {{ skid }} #(
    .Width (ReqW)
  ) u_l1 (
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  (req_valid_i),
    .in_ready_o  (req_ready_o),
    .in_data_i   (req_data_i),
    .out_valid_o (l1_valid),
    .out_ready_i (l1_take),
    .out_data_o  (l1_data)
  );

  // ---------------------------------------------------------------------------------
  // L2: tag compare of {{ look_src }}'s request against the tags as they are this clock. The
  // allocation or invalidate of the same clock (the tags change at its edge) is applied
  // a clock later, in l2_way_now, so the compare is all this clock does: l2_way_q is the
  // lookup against the tags of the clock before, l2_way_now against this clock's. An
  // allocation is four clocks from the next, so one pending is all there can be.
  reg alloc_q;
  reg inv_q;
  reg l2_valid_q;
  reg l2_inv_q;
  reg [Ports-1:0] l2_act_q;
  reg [CountW-1:0] l2_nact_q;  // active texels
{%- if merged %}
  reg l2_first_q;  // the first group of its request: the counts start again
{%- endif %}
  reg [Ways-1:0] l2_way_q [0:Ports-1];  // the way that holds the line, or none
  reg [LineAddrW-1:0] l2_line_q [0:Ports-1];
  reg [OffW-1:0] l2_off_q [0:Ports-1];
  reg [Ports-1:0] l2_line_eq_q [0:Ports-1];  // texels that share texel i's line
  reg [Ports-1:0] l2_set_eq_q [0:Ports-1];  // and its set
  wire l2_take;
  // L2 loads when it is empty or its request moves on: either RUN is empty (l2_room_q,
  // with L2 empty, registered from the next state) or RUN's request leaves (done).
  reg l2_room_q;
  wire done;
  wire [AdvCopies-1:0] adv;  // the loads' enables, from their own flag copies (g_adv)
  wire l2_load = l2_room_q || done;
  wire src_valid;  // the request L2 loads, and its tag compare's inputs
  wire [ReqW-1:0] src_data;
{%- if tag_copies %}

  // LA: the request and, per texel and way, its set's tag and valid bit, read from the
  // tag RAMs as it loads (the clock's allocation and invalidate applied: the RAMs take
  // them at its edge) and kept current while it waits (an allocation to its set writes
  // the copy as it writes the RAM). The RAM read and the compare are so a clock apart.
  reg la_valid_q;
  reg [ReqW-1:0] la_data_q;
  reg la_room_q;  // LA, L2 or RUN is empty (from the next state)
  wire la_load = la_room_q || done;

  assign l1_take   = adv[AdvL1];
  assign src_valid = la_valid_q;
  assign src_data  = la_data_q;
{%- else %}

  assign l1_take   = adv[AdvL1];
  assign src_valid = l1_valid;
  assign src_data  = l1_data;
{%- endif %}

  reg [Ways-1:0] look_way [0:Ports-1];
  reg [LineAddrW-1:0] look_line [0:Ports-1];
  reg [Ways-1:0] l2_way_d [0:Ports-1];
  reg [Ways-1:0] l2_way_now [0:Ports-1];
  reg [CountW-1:0] look_nact;
  reg [Ports-1:0] look_line_eq [0:Ports-1];
  reg [Ports-1:0] look_set_eq [0:Ports-1];

  // An allocation or invalidate applied to a texel's lookup: its line (on_line: it is
  // the allocated line) now lives in the victim's way; a texel that found the victim's
  // old line (in_set: in the allocated line's set) misses; nothing survives an
  // invalidate.
  function [Ways-1:0] fwd_way(input [Ways-1:0] way, input on_line, input in_set,
                              input do_alloc, input do_inv, input [Ways-1:0] victim);
    begin
      fwd_way = way;
      if (do_inv) begin
        fwd_way = {Ways{1'b0}};
      end else if (do_alloc && on_line) begin
        fwd_way = victim;
      end else if (do_alloc && in_set) begin
        fwd_way = way & ~victim;
      end
    end
  endfunction

  // L2's lines against the allocated line, a clock ahead: m_line_q holds the line from
  // M_VICT to the clock after M_ACT, the two clocks that forward an allocation, so the
  // flags worked out in the clock before each (from L1's lines if L2 loads, else L2's
  // own) are the compares of that clock, and the forwarding reads flags.
  reg [Ports-1:0] l2_on_m_q;  // l2_line_q[i] == m_line_q
  reg [Ports-1:0] l2_in_m_q;  // ... in its set

  // Tags: one small RAM per way, indexed by set, written by allocations, read by every
  // texel at once (FPGA tools make a LUT-RAM copy per read, which costs less than a
  // multiplexer over flops; above {{ max_ram_reads }} reads they are flops with a multiplexer per
  // read, as Yosys's RAM mapping grows exponentially with the reads).
  wire [TagW-1:0] look_tag [0:Ports*Ways-1];  // texel i's candidate in way w: i * Ways + w
  wire [Ports*Ways-1:0] look_hit;             // texel i hits in way w: bit i * Ways + w
  wire [Ports*Ports-1:0] look_line_eqs;       // texels i and j on one line: bit i * Ports + j
  wire [Ports*Ports-1:0] look_set_eqs;        // texels i and j on one set
  wire [Ports*(Ports-1)/2-1:0] pair_line_eq;  // the same, each pair once
  wire [Ports*(Ports-1)/2-1:0] pair_set_eq;

  genvar gw;
  genvar gt;
  genvar gu;  // a second texel or way of a pair
  generate
    for (gw = 0; gw < Ways; gw = gw + 1) begin : g_way
{%- if tag_logic %}
      (* ram_style = "logic" *)
{%- endif %}
      reg [TagW-1:0] way_tag_q [0:{{ sets - 1 }}];
      wire way_we = alloc && v_q[gw];

      always @(posedge clk_i) begin
        if (way_we) begin
          way_tag_q[m_set_q] <= tag_of(m_line_q);
        end
      end

      for (gt = 0; gt < Ports; gt = gt + 1) begin : g_read
        localparam [WayW-1:0] Way = gw;
        wire [LineAddrW-1:0] line = src_data[gt*AddrW + OffW +: LineAddrW];
{%- if tag_copies %}
        wire [LineAddrW-1:0] rd_line = l1_data[gt*AddrW + OffW +: LineAddrW];
        // This clock's allocation writes the copy's set and way: as L1's request loads,
        // or while LA's waits.
        wire rd_fix = way_we && set_of(rd_line) == m_set_q;
        wire la_fix = way_we && set_of(line) == m_set_q;
        reg [TagW-1:0] la_tag_q;
        reg la_vld_q;

        always @(posedge clk_i) begin
          if (adv[AdvLaTag + gt]) begin
            la_tag_q <= rd_fix ? tag_of(m_line_q) : way_tag_q[set_of(rd_line)];
            la_vld_q <= !inv_now && (rd_fix || valid_q[slot_of(set_of(rd_line), Way)]);
          end else begin
            if (la_fix) begin
              la_tag_q <= tag_of(m_line_q);
            end
            la_vld_q <= !inv_now && (la_fix || la_vld_q);
          end
        end

        assign look_tag[gt*Ways + gw] = la_tag_q;
        assign look_hit[gt*Ways + gw] = la_vld_q && look_tag[gt*Ways + gw] == tag_of(line);
{%- else %}
        assign look_tag[gt*Ways + gw] = way_tag_q[set_of(line)];
        assign look_hit[gt*Ways + gw] = valid_q[slot_of(set_of(line), Way)] &&
                                        look_tag[gt*Ways + gw] == tag_of(line);
{%- endif %}
      end
    end
    // Elaborated per pair, not unrolled in a process: Yosys's front end takes minutes
    // over ports^2 and ports x ways loops inside one always block.
    // Each pair is compared once (j < i, bit i * (i - 1) / 2 + j of the pair vectors)
    // and mirrored.
    for (gt = 0; gt < Ports; gt = gt + 1) begin : g_eq
      for (gu = 0; gu < Ports; gu = gu + 1) begin : g_other
        if (gu < gt) begin : g_below
          localparam integer   Pair   = gt * (gt - 1) / 2 + gu;
          wire [LineAddrW-1:0] line_i = src_data[gt*AddrW + OffW +: LineAddrW];
          wire [LineAddrW-1:0] line_j = src_data[gu*AddrW + OffW +: LineAddrW];
          assign pair_line_eq[Pair]           = line_i == line_j;
          assign pair_set_eq[Pair]            = set_of(line_i) == set_of(line_j);
          assign look_line_eqs[gt*Ports + gu] = pair_line_eq[Pair];
          assign look_set_eqs[gt*Ports + gu]  = pair_set_eq[Pair];
        end else if (gu > gt) begin : g_above
          localparam integer Pair = gu * (gu - 1) / 2 + gt;
          assign look_line_eqs[gt*Ports + gu] = pair_line_eq[Pair];
          assign look_set_eqs[gt*Ports + gu]  = pair_set_eq[Pair];
        end else begin : g_self
          assign look_line_eqs[gt*Ports + gu] = 1'b1;
          assign look_set_eqs[gt*Ports + gu]  = 1'b1;
        end
      end
    end
  endgenerate

  always @(*) begin : b_lookup
    integer i;
{%- if merged %}
    // The whole request's active texels, counted by the merge stage (an invalidate has
    // none): its hits are those less its misses, over all its groups.
    look_nact = src_data[ReqCountLsb +: CountW];
{%- else %}
    // Active texels, counted by a balanced adder tree; an invalidate has none.
    look_nact = src_data[ReqInvLsb] ? {CountW{1'b0}} : {{ nact_sum }};
{%- endif %}
    for (i = 0; i < Ports; i = i + 1) begin
      look_line[i]    = src_data[i*AddrW + OffW +: LineAddrW];
      look_way[i]     = look_hit[i*Ways +: Ways];
      look_line_eq[i] = look_line_eqs[i*Ports +: Ports];
      look_set_eq[i]  = look_set_eqs[i*Ports +: Ports];
    end
    // m_line_q and v_q still hold the pending allocation's line and victim (they are
    // loaded in RUN, M_SET and M_VICT, and the clock before this one was M_ACT).
    for (i = 0; i < Ports; i = i + 1) begin
      l2_way_now[i] = fwd_way(l2_way_q[i], l2_on_m_q[i], l2_in_m_q[i], alloc_q, inv_q, v_q);
      l2_way_d[i]   = adv[AdvL2] ? look_way[i] : l2_way_now[i];
    end
  end

  // A request loads into RUN with this clock's allocation applied too (M_ACT that
  // finishes its request takes the next one in the same clock).
  reg [Ways-1:0] load_way [0:Ports-1];

  always @(*) begin : b_load
    integer i;
    for (i = 0; i < Ports; i = i + 1) begin
      load_way[i] = fwd_way(l2_way_now[i], l2_on_m_q[i], l2_in_m_q[i], alloc, 1'b0, v_q);
    end
  end

  // ---------------------------------------------------------------------------------
  // RUN: the request being committed.
  reg t_valid_q;
  reg [Ports-1:0] t_pend_q;  // active texels not yet in a pass
  reg [Ways-1:0] t_way_q [0:Ports-1];
  reg [Ports-1:0] t_hit_q;  // t_way_q is not none: kept with it, off RUN's paths
  // Every pending texel hits (t_pend_q & ~t_hit_q is zero), kept as both load and as an
  // allocation updates them, so that whether RUN finishes its request (and so whether
  // L2 and L1 advance) reads one flop, not the texels' hit and pending bits.
  reg t_all_hit_q;
  reg [SlotW-1:0] t_slot_q [0:Ports-1];
  reg [LineAddrW-1:0] t_line_q [0:Ports-1];
  reg [OffW-1:0] t_off_q [0:Ports-1];
  reg [Ports-1:0] t_line_eq_q [0:Ports-1];
  reg [Ports-1:0] t_set_eq_q [0:Ports-1];
  // The pass being built.
  reg [Ports-1:0] p_mask_q;
  reg [FillsW-1:0] p_fills_q;  // lines allocated for it
  reg [CountW-1:0] hits_q;
  reg [CountW-1:0] misses_q;
  // Hits of the previous clock, for the pins and ages.
  reg [Ports-1:0] c_pin_q;  // committed to a pass that is still being built
{%- if touch_hits %}
  reg [Ports-1:0] c_touch_q;  // committed ({% if plru %}tree{% else %}ages{% endif %})
{%- endif %}
  reg [SlotW-1:0] c_slot_q [0:Ports-1];
{%- if touch_hits %}
  reg [Ways-1:0] c_way_q [0:Ports-1];  // (each set keeps which of them are its own)
{%- endif %}

  wire [Ports-1:0] t_hit = t_hit_q;
  reg [Ports-1:0] t_miss;  // pending texels that miss
  reg [Ports-1:0] first_miss;  // the first of them (one-hot)
  reg [Ports-1:0] commit;  // pending hits before it
  reg run;  // RUN acts this clock
  reg act_done;  // M_ACT allocates and the request leaves
  // The request leaves this clock when it has room for its pass and RUN holds it with
  // every texel hitting (fin_q; an invalidate has none to miss) or M_ACT may let it go
  // (leave_ok_q). fin_q is registered from the next state, so that done, and the loads
  // of L1, LA and L2 behind it, are one gate after flops. The same for an invalidate
  // leaving RUN (inv_fin_q).
  reg fin_q;
  reg inv_fin_q;
  reg emit;  // a pass leaves this clock
  reg emit_last;
  reg [Ports-1:0] pass_mask;

  always @(*) begin : b_run
    integer i;
    reg missed;  // a pending texel before texel i misses
    t_miss = t_pend_q & ~t_hit;
    missed = 1'b0;
    for (i = 0; i < Ports; i = i + 1) begin
      first_miss[i] = t_miss[i] && !missed;
      commit[i]     = t_pend_q[i] && t_hit[i] && !missed;
      missed        = missed || t_miss[i];
    end
    // A request that ends here needs room for its pass; one that stops at a miss does not.
    run       = t_valid_q && state_q == MRun && (!t_all_hit_q || pass_ready_i);
    // M_ACT finishes the request itself when every texel left is on the miss's line or
    // hits in another set (leave_ok_q): none of them depends on the victim.
    act_done  = leave_ok_q && pass_ready_i;
    emit_last = done;
    emit      = done || (state_q == MAct && v_none_q && pass_ready_i);
    pass_mask = p_mask_q | (run ? commit : {Ports{1'b0}}) | (act_done ? t_pend_q : {Ports{1'b0}});
  end

  // t_all_hit_q's next value: the request loading into RUN (an invalidate this clock
  // leaves it no hits), or the one in RUN after this clock's allocation (M_ACT: its
  // pending texels do not change then).
  reg all_hit_load;
  reg all_hit_alloc;

  always @(*) begin : b_all_hit
    integer i;
    all_hit_load  = 1'b1;
    all_hit_alloc = 1'b1;
    for (i = 0; i < Ports; i = i + 1) begin
      if (l2_act_q[i] && (inv_now || load_way[i] == {Ways{1'b0}})) begin
        all_hit_load = 1'b0;
      end
      if (t_pend_q[i] && !m_line_eq_q[i] &&
          (m_set_eq_q[i] ? (t_way_q[i] & ~v_q) == {Ways{1'b0}} : !t_hit_q[i])) begin
        all_hit_alloc = 1'b0;
      end
    end
  end

  // An invalidate has no active texels, so nothing misses: it is done when RUN acts,
  // which needs no lookup (this keeps the ways' hit logic off the forwarding path).
  assign done    = (fin_q || leave_ok_q) && pass_ready_i;
  assign inv_now = inv_fin_q && pass_ready_i;
  assign l2_take = l2_valid_q && (!t_valid_q || done);

  // The next state of RUN's request and of the stages in front of it, for the flags
  // above. A request loads into RUN (l2_take) only when RUN is empty or its request
  // leaves, and RUN is in MRun then; so a loading request finishes when all its texels
  // hit, and one that stays finishes as it did or as an allocation leaves it.
  reg [{{ state_w - 1 }}:0] state_d;
  reg t_valid_d;
  reg l2_valid_d;
  reg fin_d;
  reg inv_fin_d;
  reg l2_room_d;
{%- if tag_copies %}
  reg la_room_d;
{%- endif %}
  reg [AdvCopies-1:0] adv_room_d;
  reg [AdvCopies-1:0] adv_go_d;
  reg [AdvCopies-1:0] adv_leave_d;

  always @(*) begin : b_next
    case (state_q)
      MRun: state_d = (run && !t_all_hit_q) ? MSet : MRun;
      MSet: state_d = MVict;
{%- if pick %}
      MVict: state_d = MPick;
      MPick: state_d = MAct;
{%- else %}
      MVict: state_d = MAct;
{%- endif %}
      // M_ACT that neither allocates nor closes its pass reads the set again.
      default: state_d = (alloc || (v_none_q && pass_ready_i)) ? MRun : MSet;
    endcase
    t_valid_d  = l2_take || (t_valid_q && !done);
    l2_valid_d = l2_load ? src_valid : l2_valid_q;
    if (l2_take) begin
      fin_d     = all_hit_load;
      inv_fin_d = l2_inv_q;
    end else begin
      fin_d     = t_valid_d && state_d == MRun && (alloc ? all_hit_alloc : t_all_hit_q);
      inv_fin_d = inv_fin_q && !done;
    end
    // The groups' copies: L2 and the stages in front load on room or done; RUN loads
    // when L2 holds a request and RUN is empty or its request leaves.
    l2_room_d = !l2_valid_d || !t_valid_d;
{%- if tag_copies %}
    la_room_d = !(la_load ? l1_valid : la_valid_q) || l2_room_d;
    adv_room_d = {AdvCopies{la_room_d}};
{%- else %}
    adv_room_d = {AdvCopies{l2_room_d}};
{%- endif %}
    adv_go_d    = {AdvCopies{fin_d}};
    adv_leave_d = {AdvCopies{vict_ok && rest_hit_d}};
    adv_room_d[AdvL2]   = l2_room_d;
    adv_room_d[AdvRun]  = l2_valid_d && !t_valid_d;
    adv_go_d[AdvRun]    = l2_valid_d && fin_d;
    adv_leave_d[AdvRun] = l2_valid_d && vict_ok && rest_hit_d;
  end

  // The control's own flags, kept apart from the copies below like them.
  (* keep *)
  always @(posedge clk_i{{ rst.edge }}) begin : b_fin
    if ({{ rst.active }}) begin
      fin_q     <= 1'b0;
      inv_fin_q <= 1'b0;
      l2_room_q <= 1'b1;
{%- if tag_copies %}
      la_room_q <= 1'b1;
{%- endif %}
    end else begin
      fin_q     <= fin_d;
      inv_fin_q <= inv_fin_d;
      l2_room_q <= l2_room_d;
{%- if tag_copies %}
      la_room_q <= la_room_d;
{%- endif %}
    end
  end

  // Each group of loads reads its own copies of those flags (synthesis would merge
  // copies with the same input, so each copy's block is kept): L1's output register,
  // L2, RUN{% if tag_copies %}, LA's request and each texel's LA tag copies{% endif %}. Each load enable is
  // then one LUT after flops and drives its own group; with one enable for all (about a
  // thousand flops), its LUTs and nets crossed the die.

  genvar gc;
  generate
    for (gc = 0; gc < AdvCopies; gc = gc + 1) begin : g_adv
      reg room_q;
      reg go_q;
      reg leave_q;

      (* keep *)
      always @(posedge clk_i{{ rst.edge }}) begin
        if ({{ rst.active }}) begin
          room_q  <= 1'b1;
          go_q    <= 1'b0;
          leave_q <= 1'b0;
        end else begin
          room_q  <= adv_room_d[gc];
          go_q    <= adv_go_d[gc];
          leave_q <= adv_leave_d[gc];
        end
      end

      assign adv[gc] = room_q || ((go_q || leave_q) && pass_ready_i);
    end
  endgenerate

  assign pass_valid_o = emit;
  assign pass_data_o[PassLastLsb] = emit_last;
  // A pass that leaves with an allocation (M_ACT finishing its request) counts it.
  assign pass_data_o[PassHitsLsb +: CountW] = alloc ? hits_q - 1'b1 : hits_q;
  assign pass_data_o[PassMissesLsb +: CountW] = alloc ? misses_q + 1'b1 : misses_q;
  assign pass_data_o[PassMaskLsb +: Ports] = pass_mask;
  assign pass_data_o[PassFillsLsb +: FillsW] = alloc ? p_fills_q + 1'b1 : p_fills_q;

  genvar gp;
  generate
    for (gp = 0; gp < Ports; gp = gp + 1) begin : g_pass
      wire [SlotW-1:0] slot = (alloc && m_line_eq_q[gp]) ? alloc_slot : t_slot_q[gp];
      assign pass_data_o[PassTexelsLsb + (Ports - 1 - gp) * TexW +: TexW] = {slot, t_off_q[gp]};
    end
  endgenerate

  // ---------------------------------------------------------------------------------
  // Miss: the first miss's line and set (RUN); its set's rows (M_SET); the victim
  // (M_VICT).
  reg [SetW-1:0] m_set;
  reg [LineAddrW-1:0] m_line;
  reg [Ports-1:0] m_line_eq;
  reg [Ports-1:0] m_set_eq;
  wire [Lines-1:0] pin_now;  // pins with the previous clock's hits
  reg [Ways-1:0] set_valid;  // the miss's set's row of valid_q, pin_q, slot_full_i
  reg [Ways-1:0] set_pin;
  reg [Ways-1:0] set_full;
  reg [Ways-1:0] s_pin_d;  // the row's pins with RUN's hits in the set

  // The oldest unpinned way: one whose every other way is pinned or younger (a row of
  // the age matrix, reduced by an AND), elaborated per way.
  wire [Ways-1:0] oldest_way;
{%- if ways > 1 && plru %}
  // Under the tree: the way its nodes lead to from the root, each node's pointed-at half
  // unless every way in it is pinned, then its other half (some way is unpinned when any
  // is: v_none_d says when none is).
  wire [TreeW-1:0] go_hi;  // the walk takes the node's upper half
{%- for n in plru_nodes %}
  assign go_hi[{{ n.bit }}] = s_tree[{{ n.bit }}] ? !(&s_pin_q[{{ n.hi }}:{{ n.mid }}]) : &s_pin_q[{{ n.mid_lo }}:{{ n.lo }}];
{%- endfor %}
{%- for p in plru_paths %}
  assign oldest_way[{{ p.0 }}] = {{ p.1 }};
{%- endfor %}
{%- elif ways > 1 %}
  generate
    for (gw = 0; gw < Ways; gw = gw + 1) begin : g_oldest
      wire [Ways-1:0] beats;  // bit b: way b is pinned or younger (bit gw: gw is unpinned)
      for (gu = 0; gu < Ways; gu = gu + 1) begin : g_other
        if (gu < gw) begin : g_below
          assign beats[gu] = s_pin_q[gu] || !s_age[gu * (2 * Ways - gu - 1) / 2 + (gw - gu - 1)];
        end else if (gu > gw) begin : g_above
          assign beats[gu] = s_pin_q[gu] || s_age[gw * (2 * Ways - gw - 1) / 2 + (gu - gw - 1)];
        end else begin : g_self
          assign beats[gu] = !s_pin_q[gu];
        end
      end
      assign oldest_way[gw] = &beats;
    end
  endgenerate
{%- else %}
  assign oldest_way = ~s_pin_q;
{%- endif %}

  // Per line, a compare with its constant (a loop that sets pin_now[c_slot_q[i]] builds
  // the bit offsets with carry chains).
  genvar gn;
  generate
    for (gn = 0; gn < Lines; gn = gn + 1) begin : g_pin_now
      localparam [SlotW-1:0] Line = gn;
      wire [Ports-1:0] at;
      for (gt = 0; gt < Ports; gt = gt + 1) begin : g_port
        assign at[gt] = c_pin_q[gt] && c_slot_q[gt] == Line;
      end
      assign pin_now[gn] = pin_q[gn] | (|at);
    end
  endgenerate

  always @(*) begin : b_miss
    integer i;
    integer r;
    m_set     = {SetW{1'b0}};
    m_line    = {LineAddrW{1'b0}};
    m_line_eq = {Ports{1'b0}};
    m_set_eq  = {Ports{1'b0}};
    for (i = 0; i < Ports; i = i + 1) begin
      if (first_miss[i]) begin
        m_set     = m_set | set_of(t_line_q[i]);
        m_line    = m_line | t_line_q[i];
        m_line_eq = m_line_eq | t_line_eq_q[i];
        m_set_eq  = m_set_eq | t_set_eq_q[i];
      end
    end
    // The miss's set's rows, selected by m_set_q (each row's slots are constant bits).
    // The pins are pin_q's row and RUN's hits in the set, which are c_pin_q in the clock
    // after RUN (M_SET again after M_ACT has them in pin_q, and c_pin_q clear).
    set_valid = {Ways{1'b0}};
    set_pin   = {Ways{1'b0}};
    set_full  = {Ways{1'b0}};
    for (r = 0; r < Lines; r = r + Ways) begin
      if (slot_of(m_set_q, {WayW{1'b0}}) == r[SlotW-1:0]) begin
        set_valid = valid_q[r +: Ways];
        set_pin   = pin_q[r +: Ways];
        set_full  = slot_full_i[r +: Ways];
      end
    end
    s_pin_d = set_pin;
    for (i = 0; i < Ports; i = i + 1) begin
      if (c_pin_q[i] && m_set_eq_q[i]) begin
        s_pin_d = s_pin_d | t_way_q[i];
      end
    end
  end

  // M_VICT works out for M_ACT whether every texel left hits whatever the victim (on
  // the miss's line, or a hit in another set), from registers: the texels left are
  // t_pend_q by now (RUN took its hits off), and the miss's lines and sets are in
  // m_line_eq_q and m_set_eq_q.
  always @(*) begin : b_rest
    integer i;
    rest_hit_d = 1'b1;
    for (i = 0; i < Ports; i = i + 1) begin
      if (t_pend_q[i] && !m_line_eq_q[i] && (m_set_eq_q[i] || !t_hit_q[i])) begin
        rest_hit_d = 1'b0;
      end
    end
  end

  always @(*) begin : b_victim
    integer a;
    reg [Ways-1:0] invalid;
    reg seen;  // an invalid way below way a
    // The lowest invalid way, else the way older than every other unpinned way.
    invalid = ~s_valid_q;
    // Every local gets a value before the first branch (one set on some paths only is
    // a latch).
    seen    = 1'b0;
    v_d     = {Ways{1'b0}};
    for (a = 0; a < Ways; a = a + 1) begin
      v_d[a] = invalid[a] && !seen;
      seen   = seen || invalid[a];
    end
    if (invalid == {Ways{1'b0}}) begin
      v_d = oldest_way;
    end
    v_none_d = invalid == {Ways{1'b0}} && s_pin_q == {Ways{1'b1}};
  end

  // ---------------------------------------------------------------------------------
  // Next state of the tags, pins and ages.
  reg [Lines-1:0] valid_d;
  reg [Lines-1:0] pin_d;

  always @(*) begin : b_state
    integer i;
    valid_d = valid_q;
    for (i = 0; i < Lines; i = i + 1) begin
      if (alloc && m_sdec_q[i / Ways] && v_q[i % Ways]) begin
        valid_d[i] = 1'b1;
      end
    end
    if (inv_now) begin
      valid_d = {Lines{1'b0}};
    end
    pin_d = emit ? {Lines{1'b0}} : pin_now;
  end
{%- if ways > 1 %}
{%- if plru %}

  // The tree: a node's bit is 1 when its set's next victim is in its upper half. A
  // touch points every node on its way's path at the other half; of a clock's touches
  // in a node, the last in port order decides, and an allocation comes after them all
  // (as in the model, where the hits of a request's texels after a miss come a clock
  // later). An invalidate points every node at its lower half: the reset order.
  localparam [TreeW-1:0] TreeReset = {TreeW{1'b0}};

  function tree_bit(input old, input [Ports-1:0] thru, input [Ports-1:0] lo);
    integer p;
    begin
      tree_bit = old;
      for (p = 0; p < Ports; p = p + 1) begin
        if (thru[p]) begin
          tree_bit = lo[p];
        end
      end
    end
  endfunction

  // Per port, whether its touched way is under a node's lower or upper half; and the
  // allocation's. The same for every set: decoded once (bit p * TreeW + node bit).
  wire [Ports*TreeW-1:0] c_lo;
  wire [Ports*TreeW-1:0] c_hi;
  wire [TreeW-1:0] a_lo;
  wire [TreeW-1:0] a_hi;

  generate
    for (gp = 0; gp < Ports; gp = gp + 1) begin : g_tree_port
{%- for n in plru_nodes %}
      assign c_lo[gp*TreeW + {{ n.bit }}] = |c_way_q[gp][{{ n.mid_lo }}:{{ n.lo }}];
      assign c_hi[gp*TreeW + {{ n.bit }}] = |c_way_q[gp][{{ n.hi }}:{{ n.mid }}];
{%- endfor %}
    end
  endgenerate
{%- for n in plru_nodes %}
  assign a_lo[{{ n.bit }}] = |v_q[{{ n.mid_lo }}:{{ n.lo }}];
  assign a_hi[{{ n.bit }}] = |v_q[{{ n.hi }}:{{ n.mid }}];
{%- endfor %}

{%- else %}

  // Ages: a touched way becomes younger than every other (LRU: hits and allocations in
  // texel order; FIFO: allocations only). An invalidate restores the reset order, lower
  // ways older.
  // At 256 ways a set's age matrix is 32,640 bits: a replication that wide is meant.
  /* verilator lint_off WIDTHCONCAT */
  localparam [PairW-1:0] AgeReset = {PairW{1'b1}};
  /* verilator lint_on WIDTHCONCAT */

{%- endif %}

  genvar ga;
  generate
    for (ga = 0; ga < Sets; ga = ga + 1) begin : g_{{ order }}
      reg [{{ order_w }}-1:0] set_{{ order }}_q;
      wire [{{ order_w }}-1:0] {{ order }}_d;
{%- if touch_hits %}
      // The texels of the clock before that are in this set, decoded as c_touch_q and
      // c_way_q load, so a touch is one AND of flops.
      reg [Ports-1:0] c_here_q;

      always @(posedge clk_i) begin : b_here
        integer p;
        for (p = 0; p < Ports; p = p + 1) begin
          c_here_q[p] <= set_of(t_line_q[p]) == ga;
        end
      end
{%- endif %}
{%- if plru %}

      for (gn = 0; gn < TreeW; gn = gn + 1) begin : g_node
        wire [Ports-1:0] thru;  // port p touched a way under the node
        wire [Ports-1:0] lo;  // ... under its lower half
        wire alloc_here = alloc && m_sdec_q[ga] && (a_lo[gn] || a_hi[gn]);
        for (gp = 0; gp < Ports; gp = gp + 1) begin : g_port
          assign lo[gp]   = c_lo[gp*TreeW + gn];
          assign thru[gp] = c_touch_q[gp] && c_here_q[gp] && (lo[gp] || c_hi[gp*TreeW + gn]);
        end
        assign tree_d[gn] = inv_now    ? 1'b0 :
                            alloc_here ? a_lo[gn] : tree_bit(set_tree_q[gn], thru, lo);
      end
{%- else %}
{%- if lru %}
      // The texels that touched each way of this set this clock (way-major), and each
      // way's mask smeared down from its highest bit. Of two ways, the one touched by
      // the later texel is the younger: way b is younger than way a when a has no touch
      // above b's last one (b wins a tie, as in texel order). No loop over texels inside
      // the pair loop: that was ways^2 x texels, and minutes of elaboration at 32 ways.
      wire [Ways*Ports-1:0] touch_way;
      wire [Ways*Ports-1:Ports] touch_last;  // way 0 is never the younger of a pair
      for (gw = 0; gw < Ways; gw = gw + 1) begin : g_touch_way
        for (gp = 0; gp < Ports; gp = gp + 1) begin : g_touch_port
          assign touch_way[gw*Ports + gp] = c_touch_q[gp] && c_here_q[gp] && c_way_q[gp][gw];
          if (gw > 0) begin : g_last
            assign touch_last[gw*Ports + gp] = |touch_way[gw*Ports + gp +: Ports - gp];
          end
        end
      end
{%- endif %}

      // Per pair of ways a < b, in priority order: an invalidate restores the reset
      // order; an allocation in this set makes its way the youngest; else the later
      // texel's touch decides{% if lru %} (LRU){% endif %}; else the bit holds.
      for (gw = 0; gw < Ways; gw = gw + 1) begin : g_row
        for (gu = gw + 1; gu < Ways; gu = gu + 1) begin : g_pair
          localparam integer Pair = gw * (2 * Ways - gw - 1) / 2 + (gu - gw - 1);
          wire alloc_pair = alloc && m_sdec_q[ga] && (v_q[gw] || v_q[gu]);
{%- if lru %}
          wire touched = (touch_way[gw*Ports +: Ports] | touch_way[gu*Ports +: Ports]) != {Ports{1'b0}};
          wire b_last  = (touch_way[gw*Ports +: Ports] & ~touch_last[gu*Ports +: Ports]) == {Ports{1'b0}};
          assign age_d[Pair] = inv_now    ? 1'b1 :
                               alloc_pair ? v_q[gu] :
                               touched    ? b_last : set_age_q[Pair];
{%- else %}
          assign age_d[Pair] = inv_now    ? 1'b1 :
                               alloc_pair ? v_q[gu] : set_age_q[Pair];
{%- endif %}
        end
      end
{%- endif %}

      always @(posedge clk_i{{ rst.edge }}) begin
        if ({{ rst.active }}) begin
          set_{{ order }}_q <= {{ order_reset }};
        end else begin
          set_{{ order }}_q <= {{ order }}_d;
        end
      end

      assign {{ order }}_q[ga] = set_{{ order }}_q;
    end
  endgenerate
{%- if sets > 1 && plru %}

  // M_SET reads the miss's set's tree into a register for M_VICT, with RUN's hits in the
  // set (c_touch_q in that clock, as for the pins) applied: unlike an age matrix's, a
  // tree's victim among the unpinned ways moves when a pinned way is touched.
  reg [TreeW-1:0] s_tree_q;
  wire [TreeW-1:0] s_tree_d;
  wire [TreeW-1:0] m_tree = tree_q[m_set_q];

  generate
    for (gn = 0; gn < TreeW; gn = gn + 1) begin : g_s_node
      wire [Ports-1:0] thru;
      wire [Ports-1:0] lo;
      for (gp = 0; gp < Ports; gp = gp + 1) begin : g_port
        assign lo[gp]   = c_lo[gp*TreeW + gn];
        assign thru[gp] = c_touch_q[gp] && m_set_eq_q[gp] && (lo[gp] || c_hi[gp*TreeW + gn]);
      end
      assign s_tree_d[gn] = tree_bit(m_tree[gn], thru, lo);
    end
  endgenerate

  always @(posedge clk_i) begin : b_s_tree
    if (state_q == MSet) begin
      s_tree_q <= s_tree_d;
    end
  end

  assign s_tree = s_tree_q;
{%- elif sets > 1 %}

  // M_SET reads the miss's set's row of ages into a register for M_VICT.
  reg [PairW-1:0] s_age_q;

  always @(posedge clk_i) begin : b_s_age
    if (state_q == MSet) begin
      s_age_q <= age_q[m_set_q];
    end
  end

  assign s_age = s_age_q;
{%- else %}

  // One set: M_VICT reads its {% if plru %}tree (RUN's touches have landed by then){% else %}ages{% endif %}.
  assign s_{{ order }} = {{ order }}_q[0];
{%- endif %}
{%- endif %}

  // ---------------------------------------------------------------------------------
  // Registers.
  always @(posedge clk_i{{ rst.edge }}) begin : b_ctrl
    integer i;
    if ({{ rst.active }}) begin
      valid_q    <= {Lines{1'b0}};
      pin_q      <= {Lines{1'b0}};
      state_q    <= MRun;
      alloc_ok_q <= 1'b0;
      alloc_out_nq <= 1'b1;
      leave_ok_q <= 1'b0;
      alloc_q    <= 1'b0;
      inv_q      <= 1'b0;
{%- if tag_copies %}
      la_valid_q <= 1'b0;
{%- endif %}
      l2_valid_q <= 1'b0;
      t_valid_q  <= 1'b0;
      t_pend_q   <= {Ports{1'b0}};
      t_all_hit_q <= 1'b1;
      p_mask_q   <= {Ports{1'b0}};
      p_fills_q  <= {FillsW{1'b0}};
      c_pin_q    <= {Ports{1'b0}};
{%- if touch_hits %}
      c_touch_q  <= {Ports{1'b0}};
{%- endif %}
      gen_q <= {Lines*GenW{1'b0}};
    end else begin
      valid_q <= valid_d;
      alloc_ok_q <= vict_ok;
      alloc_out_nq <= ~vict_ok;
      leave_ok_q <= vict_ok && rest_hit_d;
      alloc_q <= alloc;
      inv_q   <= inv_now;
      pin_q   <= pin_d;
      for (i = 0; i < Lines; i = i + 1) begin
        if (alloc && m_sdec_q[i / Ways] && v_q[i % Ways]) begin
          gen_q[i*GenW +: GenW] <= gen_q[i*GenW +: GenW] + 1'b1;
        end
      end
{%- if tag_copies %}
      if (la_load) begin
        la_valid_q <= l1_valid;
      end
{%- endif %}
      l2_valid_q <= l2_valid_d;
      t_valid_q <= t_valid_d;
      // Pending texels: loaded with the request, cleared as they join a pass. RUN's
      // commits keep t_all_hit_q: it stays clear while a miss is pending, and a request
      // whose texels all hit leaves.
      if (l2_take) begin
        t_pend_q <= l2_act_q;
      end else if (run) begin
        t_pend_q <= t_pend_q & ~commit;
      end
      if (l2_take) begin
        t_all_hit_q <= all_hit_load;
      end else if (alloc) begin
        t_all_hit_q <= all_hit_alloc;
      end
      if (emit) begin
        p_mask_q <= {Ports{1'b0}};
      end else if (run) begin
        p_mask_q <= pass_mask;
      end
      // A pass that leaves with an allocation carries it (pass_data_o).
      if (emit) begin
        p_fills_q <= {FillsW{1'b0}};
      end else if (alloc) begin
        p_fills_q <= p_fills_q + 1'b1;
      end
      c_pin_q   <= (run && !emit) ? commit : {Ports{1'b0}};
{%- if touch_hits %}
      c_touch_q <= run ? commit : (act_done ? t_pend_q : {Ports{1'b0}});
{%- endif %}
      state_q <= state_d;
    end
  end

  // Datapath registers: no reset.
  always @(posedge clk_i) begin : b_data
    integer i;
    for (i = 0; i < {{ sets }}; i = i + 1) begin
      m_sdec_q[i] <= m_set_q == i[SetW-1:0];
    end
{%- if tag_copies %}
    if (adv[AdvLa]) begin
      la_data_q <= l1_data;
    end
{%- endif %}
    if (adv[AdvL2]) begin
      l2_inv_q  <= src_data[ReqInvLsb];
      l2_act_q  <= src_data[ReqInvLsb] ? {Ports{1'b0}} : src_data[ReqActLsb +: Ports];
      l2_nact_q <= look_nact;
{%- if merged %}
      l2_first_q <= src_data[ReqFirstLsb];
{%- endif %}
      for (i = 0; i < Ports; i = i + 1) begin
        l2_line_q[i] <= look_line[i];
        l2_off_q[i]  <= src_data[i*AddrW +: OffW];
        l2_line_eq_q[i] <= look_line_eq[i];
        l2_set_eq_q[i]  <= look_set_eq[i];
      end
    end
    for (i = 0; i < Ports; i = i + 1) begin
      l2_way_q[i]  <= l2_way_d[i];
      l2_on_m_q[i] <= adv[AdvL2] ? look_line[i] == m_line_q : l2_line_q[i] == m_line_q;
      l2_in_m_q[i] <= adv[AdvL2] ? set_of(look_line[i]) == m_set_q : set_of(l2_line_q[i]) == m_set_q;
    end
    // The request being committed: loaded from L2, its lookups kept current.
    for (i = 0; i < Ports; i = i + 1) begin
      if (adv[AdvRun]) begin
        t_way_q[i]     <= inv_now ? {Ways{1'b0}} : load_way[i];
        t_hit_q[i]     <= !inv_now && load_way[i] != {Ways{1'b0}};
        // The slot is the way in its set, worked out here rather than behind the lookup.
        t_slot_q[i]    <= slot_of(set_of(l2_line_q[i]), way_index(load_way[i]));
        t_line_q[i]    <= l2_line_q[i];
        t_off_q[i]     <= l2_off_q[i];
        t_line_eq_q[i] <= l2_line_eq_q[i];
        t_set_eq_q[i]  <= l2_set_eq_q[i];
      end else if (alloc) begin
        t_way_q[i] <= m_line_eq_q[i] ? v_q : (m_set_eq_q[i] ? t_way_q[i] & ~v_q : t_way_q[i]);
        t_hit_q[i] <= m_line_eq_q[i] || (m_set_eq_q[i] ? (t_way_q[i] & ~v_q) != {Ways{1'b0}} : t_hit_q[i]);
        if (m_line_eq_q[i]) begin
          t_slot_q[i] <= alloc_slot;
        end
      end
      c_slot_q[i] <= t_slot_q[i];
{%- if touch_hits %}
      c_way_q[i]  <= (alloc && m_line_eq_q[i]) ? v_q : t_way_q[i];
{%- endif %}
    end
{%- if merged %}
    // A later group of a request goes on counting (an allocation that lets the group
    // before it leave counts here too).
    if (adv[AdvRun] && l2_first_q) begin
{%- else %}
    if (adv[AdvRun]) begin
{%- endif %}
      hits_q   <= l2_nact_q;
      misses_q <= {CountW{1'b0}};
    end else if (alloc) begin
      hits_q   <= hits_q - 1'b1;
      misses_q <= misses_q + 1'b1;
    end
    // The first miss and its set, taken every clock in RUN (an allocation's line stays
    // in m_line_q for the lookups behind it a clock later); its set's rows in M_SET.
    if (state_q == MRun) begin
      m_set_q     <= m_set;
      m_line_q    <= m_line;
      m_line_eq_q <= m_line_eq;
      m_set_eq_q  <= m_set_eq;
    end
    if (state_q == MSet) begin
      s_valid_q <= set_valid;
      s_pin_q   <= s_pin_d;
      s_full_q  <= set_full;
    end
    if (state_q == MVict) begin
      v_q          <= v_d;
      v_none_q     <= v_none_d;
{%- if !pick %}
      alloc_slot_q <= slot_of(m_set_q, way_index(v_d));
{%- endif %}
    end
{%- if pick %}
    if (state_q == MPick) begin
      alloc_slot_q <= slot_of(m_set_q, way_index(v_q));
    end
{%- endif %}
  end

endmodule
