{#- The merge stage's side word as localparams: included by the merge and expand stages,
   whose structs both carry side_fields, side_tex_w and side_tex_fields. #}
{%- for f in side_fields %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
  localparam integer SideTexW = {{ side_tex_w }};
{%- for f in side_tex_fields %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}
