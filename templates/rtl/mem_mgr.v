{{ stamp }}
{#- A group of signals `<dst><name>`, each `<src><name>` registered (`<dst><name>_q`,
    loaded every clock) when `on`, or the same wire when not. -#}
{%- macro signals(dst, src, sigs, on, why) %}
{%- for (n, r) in sigs %}
{%- if on %}
  reg {{ r }}{{ dst }}{{ n }}_q;
  wire {{ r }}{{ dst }}{{ n }} = {{ dst }}{{ n }}_q;
{%- else %}
  wire {{ r }}{{ dst }}{{ n }} = {{ src }}{{ n }};
{%- endif %}
{%- endfor %}
{%- if on %}
{% if !why.is_empty() %}
  // {{ why }}
{%- endif %}
  always @(posedge clk_i) begin
{%- for (n, _) in sigs %}
    {{ dst }}{{ n }}_q <= {{ src }}{{ n }};
{%- endfor %}
  end
{%- endif %}
{%- endmacro %}
// {{ name }}: memory manager (seed 002, HMGPU): where everything lives in the shared
// memory. Commands in on req_*, one response per command out on rsp_*, in order.
//
// req_data_i = {{ req_layout }}; rsp_data_o = {{ rsp_layout }}.
// kind 0: buffer objects, 1: display lists. Ops (fields: response data on success):
{%- for l in op_lines %}
//   {{ l }}
{%- endfor %}
// Other opcodes answer BAD_OPCODE. Codes, checked in this order per op:
{%- for l in code_lines %}
//   {{ l }}
{%- endfor %}
// An error carries data 0 and changes nothing. (The contract is the generator's
// src/iface/mem_mgr.rs.)
//
// Map: shader area at {{ shader_base }} (vertex 0, vertex 1, pixel 0, pixel 1, ping-pong per
// program); image area at {{ image_base }} (source, destination, mask, 2D graphics, {{ image_slot_bytes }} bytes
// each); texture area at {{ texture_base }} ({{ textures }} texture(s) x {{ bytes_per_texture }} bytes, {{ mip_levels }} level(s)
// each); user area at {{ user_base }}: {{ pages }} page(s) of {{ page_bytes }} bytes, {{ buffer_objects }} buffer object(s) and
// {{ display_lists }} display list(s).
//
// On-chip RAMs (synchronous read and write, no reset: block RAM or macros):
//   next_mem [Pages]      next-page pointer of every page: the free list (head_q,
//                         tail_q, free_q) and every object's page chain
//   obj_mem  [Objs]       index blocks {{ obj_layout }}:
//                         buffer objects, then display lists
//   tex_mem  [TexEntries] {{ tex_layout }} of each {texture, level}
// FSM states:
{%- for l in state_lines %}
//   {{ l }}
{%- endfor %}
// Flops: the FSM, the shader ping-pong bits, the free list's head, tail and count, the
// command and the response.
//
// Pipeline: {{ sched_line }}.
// Latency and throughput: after reset the RAMs are initialised in {{ init_clocks }} clocks
// (max(Pages, Objs, TexEntries)), req_ready_o low: next_mem to 0 -> 1 -> ... -> Pages-1,
// every index block free, every texture level unset. Then a command is taken in one
// clock (the RAMs are read for it),{% if sched.ram_reg %} the RAMs' words and the command's operands are
// registered in the next (two-clock reads),{% endif %}{% if sched.word_reg %} the words' sums and compares in the next,{% endif %}{% if sched.check_reg %} its verdict is registered in the next,{% endif %} the
// verdict is applied in the next and the response is offered from the clock after:
// {{ command_clocks }} clocks per command with no stalls (a new command is taken in the clock the previous
// response leaves). ALLOC of N pages and TRANSLATE at offset O walk the next pointers,
// {{ hop_clocks }} clock(s) per page (N, resp. O / {{ page_bytes }} hops). FREE appends a whole chain to the free
// list in one clock whatever its length.
// Combinational paths: req_ready_o depends on rsp_ready_i (a command is taken while the
// previous response leaves); rsp_valid_o and rsp_data_o come from flops.
module {{ name }} #(
  // Sizes of the on-chip RAMs, from [mem.map]. The addresses in this file derive from the
  // same map: regenerate rather than override.
  parameter integer Pages = {{ pages }},
  parameter integer Objs = {{ objs }},
  parameter integer TexEntries = {{ tex_entries }}
) (
  input wire clk_i,
  input wire {{ rst.port }},
  input wire req_valid_i,
  output wire req_ready_o,
  input wire [{{ enc.req_bits - 1 }}:0] req_data_i,
  output wire rsp_valid_o,
  input wire rsp_ready_i,
  output wire [{{ enc.rsp_bits - 1 }}:0] rsp_data_o
);

  localparam integer IdW = {{ enc.id_bits }};
  localparam integer LevelW = {{ enc.level_bits }};
  localparam integer TexIdW = {{ enc.tex_id_bits }};
  localparam integer TexW = TexIdW + LevelW;
  localparam integer PageW = {{ enc.page_bits }};
  localparam integer PageLog = {{ enc.page_log }};
  localparam integer CountW = {{ enc.count_bits }};
  localparam integer ObjW = {{ enc.obj_bits }};
  localparam integer IxW = {{ ix_bits }};
  localparam integer EntryW = {{ obj_entry_bits }};
  localparam integer TexEntryW = {{ tex_entry_bits }};
  localparam integer InitW = {{ init_bits }};
  localparam integer OpW = {{ op_bits }};
  localparam integer CodeW = {{ code_bits }};
  localparam integer ArgW = {{ arg_bits }};
  localparam integer StateW = {{ state_bits }};
  localparam integer SlotW = {{ slot_bits }};
  // The RAM sizes at the widths they are compared with and loaded at.
  localparam integer LastPageIx = Pages - 1;
  localparam [PageW-1:0] LastPage = LastPageIx[PageW-1:0];
  localparam [CountW-1:0] AllPages = Pages[CountW-1:0];
  localparam [InitW:0] InitPages = Pages[InitW:0];
  localparam [InitW:0] InitObjs = Objs[InitW:0];
  localparam [InitW:0] InitTex = TexEntries[InitW:0];
  localparam [InitW:0] InitPagesLast = InitPages - 1'b1;
  localparam [InitW:0] InitObjsLast = InitObjs - 1'b1;
  localparam [InitW:0] InitTexLast = InitTex - 1'b1;
  // The map's counts at the widths they are compared with, and the last clock of the
  // initialisation.
{%- for (r, n, v) in limits %}
  localparam {{ r }} {{ n }} = {{ v }};
{%- endfor %}

  // Field offsets: the command word, an index block, a texture-table entry.
{%- for (n, v) in lsbs %}
  localparam integer {{ n }} = {{ v }};
{%- endfor %}

{%- for (n, v) in ops %}
  localparam [OpW-1:0] {{ n }} = {{ v }};
{%- endfor %}
{%- for (n, v) in codes %}
  localparam [CodeW-1:0] {{ n }} = {{ code_bits }}'d{{ v }};
{%- endfor %}
{%- for (n, v) in states %}
  localparam [StateW-1:0] {{ n }} = {{ state_bits }}'d{{ v }};
{%- endfor %}

  // ---------------------------------------------------------------------------------
  // The request's fields, and the RAM addresses read while it is taken.
  wire [OpW-1:0] req_op = req_data_i[ReqOpLsb +: OpW];
  wire req_kind = req_data_i[ReqKindLsb];
  wire [IdW-1:0] req_id = req_data_i[ReqIdLsb +: IdW];
  wire [LevelW-1:0] req_level = req_data_i[ReqLevelLsb +: LevelW];
  wire [ArgW-1:0] req_arg = req_data_i[ReqArgLsb +: ArgW];
  // Index block: buffer object `id`, or display list `id` after the buffer objects.
  wire [IxW-1:0] req_id_ix = { {{- ix_pad }}req_id};
  wire req_obj_ok = req_kind ? (req_id_ix < NumDisplayLists) : (req_id_ix < NumBufferObjects);
  wire [ObjW-1:0] req_id_obj = {{ req_id_obj }};
  wire [ObjW-1:0] req_obj_ix = req_kind ? (req_id_obj + FirstListObj) : req_id_obj;
  wire req_tex_ok = (req_id_ix < NumTextures) && ({1'b0, req_level} < NumMipLevels);
  wire take = req_valid_i & req_ready_o;

  // ---------------------------------------------------------------------------------
  // State.
  reg [StateW-1:0] state_q;
  reg [StateW-1:0] state_d;
  reg [InitW-1:0] init_q;
  reg [InitW-1:0] init_d;
  // The tables the initialisation still writes (see below).
  reg init_pt_q;
  reg init_obj_q;
  reg init_tex_q;
  reg init_end_q;  // the initialisation's last clock: set a clock ahead, off its count's compare
  reg [PageW-1:0] head_q;
  reg [PageW-1:0] head_d;
  reg [PageW-1:0] tail_q;
  reg [PageW-1:0] tail_d;
  reg [CountW-1:0] free_q;
  reg [CountW-1:0] free_d;
  reg [1:0] shader_next_q;  // per program: the slot to load next
  reg [1:0] shader_next_d;
  reg rsp_valid_q;
  reg rsp_valid_d;
  // The command being executed (datapath: no reset).
  reg [OpW-1:0] cmd_op_q;
  reg cmd_alloc_q;  // cmd_op_q is ALLOC: the walk's index block write, off the op's compare
  reg [IdW-1:0] cmd_id_q;
  reg [ArgW-1:0] cmd_arg_q;
  reg cmd_obj_ok_q;
  reg [ObjW-1:0] cmd_obj_q;
  reg cmd_tex_ok_q;
  reg [TexW-1:0] cmd_tex_q;
  // The page walk: pages still to hop, and the page whose pointer is being read.
  reg [CountW-1:0] left_q;
  reg [CountW-1:0] left_d;
  reg [PageW-1:0] prev_q;
  reg [PageW-1:0] prev_d;
  reg last_q;  // left_q is one: this hop is the walk's last (a flop: off the RAM path)
  reg last_d;
  reg [CodeW-1:0] rsp_code_q;
  reg [CodeW-1:0] rsp_code_d;
  reg [ArgW-1:0] rsp_arg_q;
  reg [ArgW-1:0] rsp_arg_d;

  assign req_ready_o = (state_q == StIdle) & (~rsp_valid_q | rsp_ready_i);
  assign rsp_valid_o = rsp_valid_q;
  assign rsp_data_o  = {rsp_arg_q, rsp_code_q};

  // ---------------------------------------------------------------------------------
  // RAMs: one write port and one registered read port each. No command reads a word in
  // the clock it is written and then uses it, so the tools need no read-during-write
  // bypass (no_rw_check): the RAM's output meets no logic before its register.
{%- if pt_tiles.is_none() %}
  (* no_rw_check *)
  reg [PageW-1:0] next_mem [0:Pages-1];
{%- endif %}
  reg pt_we;
  reg [PageW-1:0] pt_waddr;
  reg [PageW-1:0] pt_wdata;
  wire [PageW-1:0] pt_raddr;
  reg pt_from_word_q;  // this clock is a hop that is not the walk's last
  reg pt_from_decide_q;  // this clock decides (a walk may start)
{%- if pt_tiles.is_none() %}
  reg [PageW-1:0] pt_rdata_q;
{%- endif %}
  (* no_rw_check *)
  reg [EntryW-1:0] obj_mem [0:Objs-1];
  reg obj_we;
  reg [ObjW-1:0] obj_raddr;
  reg [ObjW-1:0] obj_waddr;
  reg [EntryW-1:0] obj_wdata;
  reg [EntryW-1:0] obj_rdata_q;
  (* no_rw_check *)
  reg [TexEntryW-1:0] tex_mem [0:TexEntries-1];
  reg tex_we;
  reg [TexW-1:0] tex_waddr;
  reg [TexEntryW-1:0] tex_wdata;
  reg [TexW-1:0] tex_raddr;
  reg [TexEntryW-1:0] tex_rdata_q;

{%- for (mem, port) in rams %}

  always @(posedge clk_i) begin
    if ({{ port }}_we) begin
      {{ mem }}[{{ port }}_waddr] <= {{ port }}_wdata;
    end
    {{ port }}_rdata_q <= {{ mem }}[{{ port }}_raddr];
  end
{%- endfor %}

{%- if let Some(t) = pt_tiles %}

  // The page table in {{ t.count }} tiles of up to {{ "{}"|format(1_u64 << t.bits) }} pages, one block RAM's depth on this
  // family. Each tile reads every clock and registers its word (the register goes into
  // the RAM), and the tile of the page asked for two clocks ago is selected after those
  // registers: one RAM of every page would put that select between its block RAMs and
  // their output register, where the register cannot go into the RAMs.
  localparam integer PtTiles = {{ t.count }};
  localparam integer PtTileW = {{ t.bits }};
  localparam integer PtSelW = PageW - PtTileW;
  localparam integer PtLastTilePages = {{ t.last_pages }};
  wire [PageW-1:0] pt_tile_word [0:PtTiles-1];
{%- if sched.addr_reg %}
  // The read address registered before the RAMs (StAddr), here and in each tile. Yosys
  // merges the tiles' copies (a reg's keep marks its wire only); apart, they placed slower.
  (* keep *) reg [PtSelW-1:0] pt_atile_q;
  always @(posedge clk_i) begin
    pt_atile_q <= pt_raddr[PageW-1:PtTileW];
  end
  wire [PtSelW-1:0] pt_rtile = pt_atile_q;
{%- else %}
  wire [PtSelW-1:0] pt_rtile = pt_raddr[PageW-1:PtTileW];
{%- endif %}
  reg [PtSelW-1:0] pt_rtile_q;
  reg [PtSelW-1:0] pt_rtile_out_q;
  genvar gt;
  generate
    for (gt = 0; gt < PtTiles; gt = gt + 1) begin : g_pt_tile
      localparam integer TilePages = (gt == PtTiles - 1) ? PtLastTilePages : (1 << PtTileW);
      // The last tile may hold fewer pages: its address is the low bits it needs.
      localparam integer TileAddrW = (TilePages > 1) ? $clog2(TilePages) : 1;
      localparam [PtSelW-1:0] Tile = gt;
      (* no_rw_check *)
      reg [PageW-1:0] mem [0:TilePages-1];
      reg [PageW-1:0] rdata_q;
      reg [PageW-1:0] out_q;
{%- if sched.addr_reg %}
      (* keep *) reg [TileAddrW-1:0] raddr_q;

      always @(posedge clk_i) begin
        raddr_q <= pt_raddr[TileAddrW-1:0];
      end
{%- else %}
      wire [TileAddrW-1:0] raddr_q = pt_raddr[TileAddrW-1:0];
{%- endif %}

{%- if sched.addr_reg %}
      // The write port registered too (each tile's enable; the address and data merge into
      // one copy, as the read address does): the FSM's write mux and its net to every block
      // RAM are two clocks' worth at this target. The write lands a clock later, which
      // nothing sees: the first read after a write (a walk's first hop) is clocks behind it.
      (* keep *) reg we_q;
      reg [TileAddrW-1:0] waddr_q;
      reg [PageW-1:0] wdata_q;
      always @(posedge clk_i{{ rst.edge }}) begin
        if ({{ rst.active }}) begin
          we_q <= 1'b0;
        end else begin
          we_q <= pt_we && (pt_waddr[PageW-1:PtTileW] == Tile);
        end
      end
      always @(posedge clk_i) begin
        waddr_q <= pt_waddr[TileAddrW-1:0];
        wdata_q <= pt_wdata;
      end
{%- else %}
      wire we_q = pt_we && (pt_waddr[PageW-1:PtTileW] == Tile);
      wire [TileAddrW-1:0] waddr_q = pt_waddr[TileAddrW-1:0];
      wire [PageW-1:0] wdata_q = pt_wdata;
{%- endif %}

      always @(posedge clk_i) begin
        if (we_q) begin
          mem[waddr_q] <= wdata_q;
        end
        rdata_q <= mem[raddr_q];
        out_q   <= rdata_q;
      end

      assign pt_tile_word[gt] = out_q;
    end
  endgenerate

  always @(posedge clk_i) begin
    pt_rtile_q     <= pt_rtile;
    pt_rtile_out_q <= pt_rtile_q;
  end

{%- if sched.select_reg %}
  // The selected word registered (StSelect): the tiles' words cross the RAM array to the
  // select, and the select's result crosses it back to the address copies.
  reg [PageW-1:0] pt_sel_q;
  always @(posedge clk_i) begin
    pt_sel_q <= pt_tile_word[pt_rtile_out_q];
  end
  wire [PageW-1:0] pt_word = pt_sel_q;
{%- else %}
  wire [PageW-1:0] pt_word = pt_tile_word[pt_rtile_out_q];
{%- endif %}
{%- endif %}

  // The RAMs' words as the logic sees them{% if sched.ram_reg %}: registered after the RAM (two-clock reads){% else %}: straight from the RAM{% endif %}.
{%- for w in ram_words %}
{%- if sched.ram_reg %}
  reg {{ w.range }}{{ w.port }}_out_q;
  wire {{ w.range }}{{ w.port }}_word = {{ w.port }}_out_q;
{%- else %}
  wire {{ w.range }}{{ w.port }}_word = {{ w.port }}_rdata_q;
{%- endif %}
{%- endfor %}
{%- if sched.ram_reg %}

  // Loaded every clock, straight from the RAM (no logic between them): the read
  // addresses hold the command's index block and texture level, and the page being
  // hopped from, so the words stay the command's while it runs.
  always @(posedge clk_i) begin
{%- for w in ram_words %}
    {{ w.port }}_out_q <= {{ w.port }}_rdata_q;
{%- endfor %}
  end
{%- endif %}

  // The index block read for the command: {{ obj_layout }}.
  wire [PageW-1:0] obj_start = obj_word[ObjStartLsb +: PageW];
  wire [PageW-1:0] obj_end = obj_word[ObjEndLsb +: PageW];
  wire [31:0] obj_size = obj_word[ObjSizeLsb +: 32];
  wire [31:0] obj_param = obj_word[ObjParamLsb +: 32];
  wire obj_live = cmd_obj_ok_q & obj_word[ObjLiveLsb];

  // Pages a size takes: ceil(bytes / {{ page_bytes }}), as (bytes + {{ page_bytes }} - 1) >> PageLog in 33
  // bits: one carry chain, with no OR of the low bits in front of it.
  localparam [32:0] PageRound = (33'd1 << PageLog) - 33'd1;
  wire [32:0] arg_up = {1'b0, cmd_arg_q} + PageRound;
  wire [31:0] arg_pages = { {(PageLog-1){1'b0}}, arg_up[32:PageLog]};
  wire [31:0] free_ext = { {{- free_pad }}free_q};
  wire [31:0] arg_hops = cmd_arg_q >> PageLog;
  wire [PageLog-1:0] arg_off = cmd_arg_q[PageLog-1:0];
  wire [IxW-1:0] cmd_id_ix = { {{- ix_pad }}cmd_id_q};

  // Fixed partitions: {% if tex_split.is_some() %}texture `id`'s base's high bits{% else %}texture `id`'s first and last byte{% endif %}, image slot and shader slot bases.
{%- if let Some(ts) = tex_split %}
  localparam integer TexLog = {{ ts.log }};  // log2 of a texture's bytes
{%- if !ts.aligned %}
  localparam [TexLog-1:0] TexLow = {{ ts.low }};  // the bases' low bits
{%- endif %}
  reg [31-TexLog:0] part_hi;
{%- if !ts.aligned %}
  reg [31-TexLog:0] part_hi1;
{%- endif %}
{%- if !ts.aligned %}

  // x >= TexLow, folded bit by bit from the bottom (x[b:0] >= TexLow[b:0] needs x[b] as
  // well when TexLow[b] is set, and holds when x[b] alone is set otherwise), so that
  // synthesis builds it from LUTs instead of a carry chain.
  function automatic at_least_low;
    input [TexLog-1:0] x;
    integer b;
    begin
      at_least_low = 1'b1;
      for (b = 0; b < TexLog; b = b + 1) begin
        at_least_low = TexLow[b] ? (x[b] & at_least_low) : (x[b] | at_least_low);
      end
    end
  endfunction
{%- endif %}
{%- else %}
  reg [31:0] part_base;
  reg [31:0] part_last;
{%- endif %}

  reg [31:0] image_slot_base;
  reg [31:0] shader_slot_base;
  reg [SlotW-1:0] shader_slot;
  wire [31:0] img_addr = image_slot_base + cmd_arg_q;
  // The checks on the command alone.
{%- if let Some(ts) = tex_split %}
{%- if ts.aligned %}
  // A texture owns 2^TexLog bytes from an aligned base: its bits above TexLog are id's.
  wire tex_range_bad = (cmd_arg_q[31:TexLog] != part_hi);
{%- else %}
  // A texture owns 2^TexLog bytes from a base with TexLow below: in range when the bits
  // above TexLog are the base's and the low ones reach TexLow, or are the base's plus one
  // and stay below it. No carry chain: the low compare is with a constant.
  wire arg_low_ge = at_least_low(cmd_arg_q[TexLog-1:0]);
  wire tex_range_bad = ~(((cmd_arg_q[31:TexLog] == part_hi) & arg_low_ge) |
                         ((cmd_arg_q[31:TexLog] == part_hi1) & ~arg_low_ge));
{%- endif %}
{%- else %}
  wire tex_range_bad = (cmd_arg_q < part_base) || (cmd_arg_q > part_last);
{%- endif %}
  wire img_range_bad = (cmd_arg_q >= ImageSlotBytes);
  wire img_id_bad = (cmd_id_ix >= NumImageSlots);
  wire prog_id_bad = (cmd_id_ix >= NumPrograms);
  wire arg_zero = (cmd_arg_q == 32'd0);
  wire hops_zero = (arg_hops == 32'd0);
  // A walk of one page (its count as the walk takes it), for ALLOC and for TRANSLATE.
  // ALLOC's: 1..=one page of bytes, from the argument's bits (not behind arg_pages' carry;
  // a walk happens only for page counts below the free count, so the width agrees).
  wire pages_one = ~arg_zero & (hops_zero | (cmd_arg_q == (32'd1 << PageLog)));
  wire hops_one = (arg_hops[CountW-1:0] == {{ count_one }});

  always @(*) begin
{%- if let Some(ts) = tex_split %}
    part_hi = {(32-TexLog){1'b0}};
{%- if !ts.aligned %}
    part_hi1 = {(32-TexLog){1'b0}};
{%- endif %}
    case (cmd_id_q[TexIdW-1:0])
{%- for h in ts.highs %}
{%- if ts.aligned %}
      {{ h.0 }}: part_hi = {{ h.1 }};
{%- else %}
      {{ h.0 }}: begin
        part_hi = {{ h.1 }};
        part_hi1 = {{ h.2 }};
      end
{%- endif %}
{%- endfor %}
      default: begin
        part_hi = {(32-TexLog){1'b0}};
{%- if !ts.aligned %}
        part_hi1 = {(32-TexLog){1'b0}};
{%- endif %}
      end
    endcase
{%- else %}
    part_base = 32'h0;
    part_last = 32'h0;
    case (cmd_id_q[TexIdW-1:0])
{%- for c in tex_parts %}
      {{ c.sel }}: begin  // {{ c.label }}
        part_base = {{ c.addr }};
        part_last = {{ c.last }};
      end
{%- endfor %}
      default: begin
        part_base = 32'h0;
        part_last = 32'h0;
      end
    endcase
{%- endif %}
    image_slot_base = 32'h0;
    case (cmd_id_q[SlotW-1:0])
{%- for c in image_slots %}
      {{ c.sel }}: image_slot_base = {{ c.addr }};  // {{ c.label }}
{%- endfor %}
      default: image_slot_base = 32'h0;
    endcase
    shader_slot = {cmd_id_q[0], (cmd_op_q == OpShaderLoad) ? shader_next_q[cmd_id_q[0]]
                                                            : ~shader_next_q[cmd_id_q[0]]};
    shader_slot_base = 32'h0;
    case (shader_slot)
{%- for c in shader_slots %}
      {{ c.sel }}: shader_slot_base = {{ c.addr }};  // {{ c.label }}
{%- endfor %}
      default: shader_slot_base = 32'h0;
    endcase
  end

  // The command's operands (functions of the command alone){% if sched.ram_reg %}, registered while the RAMs'
  // words are: the verdict starts from flops{% endif %}.
{%- call signals("opd_", "", operands, sched.ram_reg, "") %}{%- endcall %}

  // ---------------------------------------------------------------------------------
  // The RAMs' words' sums and compares{% if sched.word_reg %}, registered a clock before the verdict reads them{% endif %}:
  // the pages an object's size takes (ceil(bytes / {{ page_bytes }})), the translate's range
  // check and its address; and an ALLOC's pages against the free count.
  wire [32:0] size_up = {1'b0, obj_size} + PageRound;
  wire [31:0] size_pages = { {(PageLog-1){1'b0}}, size_up[32:PageLog]};
  wire unused_round = ^{arg_up[PageLog-1:0], size_up[PageLog-1:0]};  // below a page
  wire arg_ge_size = (cmd_arg_q >= obj_size);
  // free_ext is free_q widened: pages above its width are too many whatever it holds, so
  // the compare's carry chain is CountW bits long, not 32.
  wire no_memory = (|opd_arg_pages[31:CountW]) | (opd_arg_pages[CountW-1:0] > free_q);
  wire live = obj_live;  // the index block's live bit, beside the sums
  wire [31:0] translate_addr = {{ user_base }} + { {{- user_pad }}obj_start, arg_off};
  wire [ArgW-1:0] tex_base = tex_word[TexBaseLsb +: ArgW];
  wire tex_set = tex_word[TexSetLsb];
{%- call signals("wd_", "", words, sched.word_reg, "Loaded every clock: the words and the command hold while it runs.") %}{%- endcall %}

  // The free count after an ALLOC's walk{% if sched.check_reg %} or a FREE{% endif %}, summed a clock ahead: free_q, the
  // operands and the words hold while a command runs, so the sum is ready when the walk
  // ends{% if sched.check_reg %} (or the decide clock comes, a clock after the words){% endif %}, and free_q's next value is
  // only a select of flops.
  reg [CountW-1:0] free_alloc_q;
{%- if sched.check_reg %}
  reg [CountW-1:0] free_freed_q;
{%- endif %}
  always @(posedge clk_i) begin
    free_alloc_q <= free_q - opd_arg_pages[CountW-1:0];
{%- if sched.check_reg %}
    free_freed_q <= free_q + wd_size_pages[CountW-1:0];
{%- endif %}
  end

  // ---------------------------------------------------------------------------------
  // The verdict: the response code and data, and the walk to start, from the command,
  // its operands and the RAMs' words. Checks go in the contract's order per op.
  reg [CodeW-1:0] check_code;
  reg [ArgW-1:0] check_data;
  reg check_walk;  // ALLOC and TRANSLATE: start a walk of check_hops pages
  reg [PageW-1:0] check_from;
  reg [CountW-1:0] check_hops;
  // Decoded for the decide clock: the code is OK, the free list is empty, and the RAM
  // writes the decide clock makes (so that their enables are not behind the verdict).
  wire check_ok = (check_code == CodeOk);
  wire check_free_empty = (free_q == {CountW{1'b0}});
  // And the decide clock's updates by op, so that no op decode lies behind the verdict
  // there: a FREE's list update, a SHADER_LOAD's slot flip, a walk of one page. Each is
  // its op's own checks (those of the case below that pass), not the code's compare
  // after the case's select.
  wire obj_ok_live = cmd_obj_ok_q & wd_live;
  wire check_free_ok = (cmd_op_q == OpFree) & obj_ok_live;
  wire check_shader_ok = (cmd_op_q == OpShaderLoad) & ~opd_prog_id_bad;
  wire check_tex_we = (cmd_op_q == OpTexSet) & cmd_tex_ok_q & ~opd_tex_range_bad;
  wire check_obj_we = ((cmd_op_q == OpFree) | (cmd_op_q == OpSetParam)) & obj_ok_live;
  wire check_pt_we = check_free_ok & ~check_free_empty;
  wire check_one_hop = (cmd_op_q == OpTranslate) ? opd_hops_one : opd_pages_one;

  always @(*) begin
    check_code = CodeOk;
    check_data = 32'd0;
    check_walk = 1'b0;
    check_from = head_q;
    check_hops = opd_arg_pages[CountW-1:0];
    case (cmd_op_q)
      OpTexSet: begin
        check_data = cmd_arg_q;
        if (!cmd_tex_ok_q) begin
          check_code = CodeBadId;
        end else if (opd_tex_range_bad) begin
          check_code = CodeRange;
        end
      end
      OpTexGet: begin
        check_data = wd_tex_base;
        if (!cmd_tex_ok_q) begin
          check_code = CodeBadId;
        end else if (!wd_tex_set) begin
          check_code = CodeNotAllocated;
        end
      end
      OpImgAddr: begin
        check_data = opd_img_addr;
        if (opd_img_id_bad) begin
          check_code = CodeBadId;
        end else if (opd_img_range_bad) begin
          check_code = CodeRange;
        end
      end
      OpShaderLoad, OpShaderActive: begin
        check_data = opd_shader_slot_base;
        if (opd_prog_id_bad) begin
          check_code = CodeBadId;
        end
      end
      OpFreePages: begin
        check_data = free_ext;
      end
      OpAlloc: begin
        if (!cmd_obj_ok_q) begin
          check_code = CodeBadId;
        end else if (wd_live) begin
          check_code = CodeAlreadyAllocated;
        end else if (opd_arg_zero) begin
          check_code = CodeRange;
        end else if (wd_no_memory) begin
          check_code = CodeNoMemory;
        end else begin
          // Walk N pointers from the head: the chain is already linked.
          check_walk = 1'b1;
        end
      end
      OpFree: begin
        // The pages returned: the free count grows by them.
        check_data = wd_size_pages;
        if (!cmd_obj_ok_q) begin
          check_code = CodeBadId;
        end else if (!wd_live) begin
          check_code = CodeDoubleFree;
        end
      end
      OpTranslate, OpSetParam, OpGetParam, OpObjSize: begin
        if (cmd_op_q == OpTranslate) begin
          check_data = wd_translate_addr;
        end else if (cmd_op_q == OpSetParam) begin
          check_data = cmd_arg_q;
        end else if (cmd_op_q == OpGetParam) begin
          check_data = wd_obj_param;
        end else begin
          check_data = wd_obj_size;
        end
        if (!cmd_obj_ok_q) begin
          check_code = CodeBadId;
        end else if (!wd_live) begin
          check_code = CodeNotAllocated;
        end else if (cmd_op_q == OpTranslate) begin
          if (wd_arg_ge_size) begin
            check_code = CodeRange;
          end else if (!opd_hops_zero) begin
            check_walk = 1'b1;
            check_from = wd_obj_start;
            check_hops = arg_hops[CountW-1:0];
          end
        end
      end
      default: begin
        check_code = CodeBadOpcode;
      end
    endcase
  end

  // The verdict as the decide clock applies it{% if sched.check_reg %}: registered a clock before{% endif %}.
{%- call signals("vd_", "check_", verdict, sched.check_reg, "") %}{%- endcall %}

  // ---------------------------------------------------------------------------------
  // The FSM: initialise, take a command, decide it, walk pages.
  always @(*) begin
    state_d       = state_q;
    init_d        = init_q;
    head_d        = head_q;
    tail_d        = tail_q;
    free_d        = free_q;
    shader_next_d = shader_next_q;
    left_d        = left_q;
    prev_d        = prev_q;
    last_d        = last_q;
    rsp_valid_d   = rsp_valid_q & ~rsp_ready_i;
    rsp_code_d    = rsp_code_q;
    rsp_arg_d     = rsp_arg_q;
    pt_we         = 1'b0;
    pt_waddr      = init_q[PageW-1:0];
    pt_wdata      = init_q[PageW-1:0] + {{ page_one }};
    obj_we        = 1'b0;
    obj_waddr     = cmd_obj_q;
    obj_wdata     = {1'b1, 32'd0, cmd_arg_q, prev_q, head_q};
    obj_raddr     = cmd_obj_ok_q ? cmd_obj_q : {ObjW{1'b0}};
    tex_we        = 1'b0;
    tex_waddr     = cmd_tex_q;
    tex_wdata     = {1'b1, cmd_arg_q};
    tex_raddr     = cmd_tex_ok_q ? cmd_tex_q : {TexW{1'b0}};
    case (state_q)
      StInit: begin
        // next(p) = p + 1, the last page pointing back to page 0; every index block and
        // texture level free.
        pt_we     = init_pt_q;
        obj_we    = init_obj_q;
        tex_we    = init_tex_q;
        obj_waddr = init_q[ObjW-1:0];
        obj_wdata = {EntryW{1'b0}};
        tex_waddr = init_q[TexW-1:0];
        tex_wdata = {TexEntryW{1'b0}};
        if (init_q[PageW-1:0] == LastPage) begin
          pt_wdata = {PageW{1'b0}};
        end
        if (init_end_q) begin
          state_d = StIdle;
        end else begin
          init_d = init_q + {{ init_one }};
        end
      end
      StIdle: begin
        // The RAMs read for the request offered, taken or not: nothing reads their words
        // while idle, and the take stays off their address pins.
        obj_raddr = req_obj_ok ? req_obj_ix : {ObjW{1'b0}};
        tex_raddr = req_tex_ok ? {req_id[TexIdW-1:0], req_level} : {TexW{1'b0}};
        if (take) begin
          state_d = {{ after_take }};
        end
      end
{%- if sched.ram_reg %}
      StRead: begin
        state_d = {{ after_read }};
      end
{%- endif %}
{%- if sched.word_reg %}
      StWord: begin
        state_d = StCheck;
      end
{%- endif %}
{%- if sched.check_reg %}
      StCheck: begin
        state_d = StDecide;
      end
{%- endif %}
      StDecide: begin
        state_d     = StIdle;
        rsp_valid_d = 1'b1;
        rsp_code_d  = vd_code;
        rsp_arg_d   = vd_ok ? vd_data : 32'd0;
        tex_we = vd_tex_we;
        obj_we = vd_obj_we;
        pt_we  = vd_pt_we;
        // The write ports' addresses and data need no op decode: only the enables above
        // say whether a write happens. The page table is written here only by a FREE:
        // append the object's chain to the free list's tail (when the list is not
        // empty). The index block: a FREE clears its live bit, SET_PARAM sets the
        // parameter (the verdict's FREE flag tells them apart).
        pt_waddr  = tail_q;
        pt_wdata  = obj_start;
        obj_wdata = vd_free_ok ? {1'b0, obj_word[EntryW-2:0]}
                               : {1'b1, cmd_arg_q, obj_size, obj_end, obj_start};
        if (vd_shader_ok) begin
          shader_next_d[cmd_id_q[0]] = ~shader_next_q[cmd_id_q[0]];
        end
        if (vd_free_ok) begin
          if (vd_free_empty) begin
            head_d = obj_start;
          end
          tail_d = obj_end;
          free_d = {% if sched.check_reg %}free_freed_q{% else %}free_q + vd_data[CountW-1:0]{% endif %};
        end
        if (vd_walk) begin
          // The response waits for the walk: read next(vd_from) now.
          rsp_valid_d = 1'b0;
          state_d     = {{ after_hop_read }};
          prev_d      = vd_from;
          left_d      = vd_hops;
          last_d      = vd_one_hop;
        end
      end
{%- if sched.addr_reg %}
      StAddr: begin
        state_d = StHop;
      end
{%- endif %}
{%- if sched.ram_reg %}
      StHop: begin
        state_d = {% if sched.select_reg %}StSelect{% else %}StWalk{% endif %};
      end
{%- endif %}
{%- if sched.select_reg %}
      StSelect: begin
        state_d = StWalk;
      end
{%- endif %}
      StWalk: begin
        // pt_word is next(prev_q): one page hop.
        if (last_q) begin
          state_d     = StIdle;
          rsp_valid_d = 1'b1;
          rsp_code_d  = CodeOk;
          if (cmd_alloc_q) begin
            // Pages head .. prev_q are the object's; the page after them is the new head.
            obj_we    = 1'b1;
            head_d    = pt_word;
            free_d    = free_alloc_q;
            rsp_arg_d = {{ user_base }} + { {{- user_pad }}head_q, {PageLog{1'b0}}};
          end else begin
{%- if sched.answer_reg %}
            // TRANSLATE: the answer a clock later, from the last page registered.
            state_d     = StAnswer;
            rsp_valid_d = 1'b0;
            prev_d      = pt_word;
{%- else %}
            rsp_arg_d = {{ user_base }} + { {{- user_pad }}pt_word, arg_off};
{%- endif %}
          end
        end else begin
          state_d  = {{ after_hop_read }};
          prev_d   = pt_word;
          left_d   = left_q - {{ count_one }};
          // left_d is one: left_q is two (no compare behind the decrement's carry).
          last_d   = (left_q == {{ count_two }});
        end
      end
{%- if sched.answer_reg %}
      StAnswer: begin
        state_d     = StIdle;
        rsp_valid_d = 1'b1;
        rsp_code_d  = CodeOk;
        rsp_arg_d   = {{ user_base }} + { {{- user_pad }}prev_q, arg_off};
      end
{%- endif %}
      default: begin
        state_d = StInit;
      end
    endcase
  end

  // ---------------------------------------------------------------------------------
  // The initialisation writes each table while the count is below its size: a flag per
  // table that falls after its last entry, so no compare lies on a RAM's write enable.
  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      init_pt_q  <= 1'b1;
      init_obj_q <= 1'b1;
      init_tex_q <= 1'b1;
      init_end_q <= 1'b0;
    end else if (state_q == StInit) begin
      init_end_q <= (init_q == InitBeforeLast);
      init_pt_q  <= init_pt_q & ({1'b0, init_q} != InitPagesLast);
      init_obj_q <= init_obj_q & ({1'b0, init_q} != InitObjsLast);
      init_tex_q <= init_tex_q & ({1'b0, init_q} != InitTexLast);
    end
  end

  // ---------------------------------------------------------------------------------
  // The page table's read address: next(prev_d), the page the walk is at next clock.
  // Which of prev_d's sources that is (a hop: the word just read; a walk's start: the
  // verdict's first page; else prev_q) is decided a clock ahead into two flops, so the
  // FSM's state decode does not lie between a flop and the RAM's address pins.
  assign pt_raddr = pt_from_word_q ? pt_word : ((pt_from_decide_q & vd_walk) ? vd_from : prev_q);

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      pt_from_word_q   <= 1'b0;
      pt_from_decide_q <= 1'b0;
    end else begin
      pt_from_word_q   <= (state_d == StWalk) & ~last_d;
      pt_from_decide_q <= (state_d == StDecide);
    end
  end

  // ---------------------------------------------------------------------------------
  // Registers.
  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      state_q       <= StInit;
      init_q        <= {InitW{1'b0}};
      head_q        <= {PageW{1'b0}};
      tail_q        <= LastPage;
      free_q        <= AllPages;
      shader_next_q <= 2'b00;
      rsp_valid_q   <= 1'b0;
    end else begin
      state_q       <= state_d;
      init_q        <= init_d;
      head_q        <= head_d;
      tail_q        <= tail_d;
      free_q        <= free_d;
      shader_next_q <= shader_next_d;
      rsp_valid_q   <= rsp_valid_d;
    end
  end

  // Datapath registers: the command, the walk and the response.
  always @(posedge clk_i) begin
    if (take) begin
      cmd_op_q     <= req_op;
      cmd_alloc_q  <= (req_op == OpAlloc);
      cmd_id_q     <= req_id;
      cmd_arg_q    <= req_arg;
      cmd_obj_ok_q <= req_obj_ok;
      cmd_obj_q    <= req_obj_ix;
      cmd_tex_ok_q <= req_tex_ok;
      cmd_tex_q    <= {req_id[TexIdW-1:0], req_level};
    end
    left_q     <= left_d;
    prev_q     <= prev_d;
    last_q     <= last_d;
    rsp_code_q <= rsp_code_d;
    rsp_arg_q  <= rsp_arg_d;
  end
endmodule
