{{ stamp }}
// {{ name }}: the texture cache's expand stage, behind the tag unit when a merge stage is
// in front of it. The tag unit builds its passes over a group's lines, {{ tag_ports }} ports; this
// puts the request's texels back: each texel of the group takes the slot of the port
// that looked its line up (the side word's lead) and keeps its own word offset, and is
// in the pass where that port is. The counts are the request's own (the tag unit counts
// on over its groups), and a pass ends the request only with the request's last group.
// kpass_i: the tag unit's pass (rtl::tex_cache::pass_fields at {{ tag_ports }} ports).
// side_i:  the group's side word from the merge stage (side_fields), at the head of the
//          side FIFO while the group's passes leave the tag unit.
// pass_o:  the pass at {{ ports }} texels, as the cache queues it.
// Combinational: a {{ tag_ports }}:1 select of a slot and of a mask bit per texel.
module {{ name }} (
  input wire [{{ kpass_w - 1 }}:0] kpass_i,
  input wire [{{ side_w - 1 }}:0] side_i,
  output wire [{{ pass_w - 1 }}:0] pass_o
);

  localparam integer Ports = {{ ports }};
  localparam integer TagPorts = {{ tag_ports }};
  localparam integer OffW = {{ off_w }};  // word offset in a line
  localparam integer SlotW = {{ slot_w }};
  localparam integer LeadW = {{ lead_w }};  // a tag port
  localparam integer TexW = SlotW + OffW;  // a texel of a pass: {slot, off}
  localparam integer CountW = {{ count_w }};
{%- for f in kpass_fields %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer KFillsW = {{ kfills_w }};
{%- for f in pass_fields %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer FillsW = {{ fills_w }};
  // The side word (rtl::tex_cache::side_fields and side_texel_fields).
{%- include "rtl/tex_cache_side.v" %}

  // The tag unit's ports: each one's slot and whether it is in this pass. Its offsets
  // are the line's first texel's, which the texels do not need.
  wire [SlotW-1:0] kslot [0:TagPorts-1];
  wire [TagPorts-1:0] kmask = kpass_i[KPassMaskLsb +: TagPorts];
  wire [TagPorts*OffW-1:0] unused_koff;

  genvar gp;
  genvar gi;
  generate
    for (gp = 0; gp < TagPorts; gp = gp + 1) begin : g_port
      wire [TexW-1:0] kt = kpass_i[KPassTexelsLsb + (TagPorts - 1 - gp) * TexW +: TexW];
      assign kslot[gp] = kt[OffW +: SlotW];
      assign unused_koff[gp*OffW +: OffW] = kt[0 +: OffW];
    end
    for (gi = 0; gi < Ports; gi = gi + 1) begin : g_texel
      wire [SideTexW-1:0] st = side_i[SideTexelsLsb + gi*SideTexW +: SideTexW];
      wire [LeadW-1:0] lead = st[SideTexLeadLsb +: LeadW];
      assign pass_o[PassTexelsLsb + (Ports - 1 - gi) * TexW +: TexW] = {kslot[lead], st[SideTexOffLsb +: OffW]};
      assign pass_o[PassMaskLsb + gi] = st[SideTexInLsb] && kmask[lead];
    end
  endgenerate

  assign pass_o[PassFillsLsb +: FillsW] = {{ "{{" }}(FillsW - KFillsW){1'b0}}, kpass_i[KPassFillsLsb +: KFillsW]};
  assign pass_o[PassMissesLsb +: CountW] = kpass_i[KPassMissesLsb +: CountW];
  assign pass_o[PassHitsLsb +: CountW] = kpass_i[KPassHitsLsb +: CountW];
  assign pass_o[PassLastLsb] = kpass_i[KPassLastLsb] && side_i[SideFinalLsb];

endmodule
