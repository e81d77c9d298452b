{#- Shared by templates that schedule their stages (`import`ed, not rendered alone): a
   stage's skid register (the including template's `skid` module, its `rst` and clock), a
   plain pipeline register where the including template's `credits` says that its
   pipeline never stalls inside, or wires where the schedule merges the stage with the
   next. -#}
{#- A handshake block's port connections: clock, reset, valid/ready/data in and out. -#}
{%- macro conn(in_valid, in_ready, in_data, out_valid, out_ready, out_data) %}
    .clk_i       (clk_i),
    .{{ rst.port }}{{ rst.pad }} ({{ rst.port }}),
    .in_valid_i  ({{ in_valid }}),
    .in_ready_o  ({{ in_ready }}),
    .in_data_i   ({{ in_data }}),
    .out_valid_o ({{ out_valid }}),
    .out_ready_i ({{ out_ready }}),
    .out_data_o  ({{ out_data }})
{%- endmacro %}

{%- macro stage(on, inst, w, in_valid, in_ready, in_data, out_valid, out_ready, out_data) %}
{%- if on && credits %}

  // Pipeline register ({{ inst }}): nothing holds it, since the credits at the pipeline's
  // entry keep its output queue from filling. Its data loads every clock, no enable.
  reg {{ out_valid }}_q;
  reg [{{ w }}-1:0] {{ out_data }}_q;
  wire unused_{{ out_ready }} = {{ out_ready }};

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      {{ out_valid }}_q <= 1'b0;
    end else begin
      {{ out_valid }}_q <= {{ in_valid }};
    end
  end

  always @(posedge clk_i) begin
    {{ out_data }}_q <= {{ in_data }};
  end

  assign {{ in_ready }} = 1'b1;
  assign {{ out_valid }} = {{ out_valid }}_q;
  assign {{ out_data }} = {{ out_data }}_q;
{%- elif on %}

  {{ skid }} #(
    .Width ({{ w }})
  ) {{ inst }} (
{%- call conn(in_valid, in_ready, in_data, out_valid, out_ready, out_data) %}{% endcall %}
  );
{%- else %}

  // No register here at {{ target_mhz }} MHz ({{ inst }}): this stage shares the next one's clock.
  assign {{ out_valid }} = {{ in_valid }};
  assign {{ in_ready }} = {{ out_ready }};
  assign {{ out_data }} = {{ in_data }};
{%- endif %}
{%- endmacro %}

{#- The queue at the end of a pipeline of such registers, and the credits that keep it from
   filling (the including template's `queue`: a `CreditQueue`, and its `fifo` module). A
   pass takes a credit as it enters the pipeline (`take`) and gives it back as it leaves
   the queue; `room` says whether a credit is left. -#}
{%- macro queue(w, take, room, in_valid, in_ready, in_data, out_valid, out_ready, out_data) %}

  // ---------------------------------------------------------------------------------
  // The queue and the credits: an item takes a credit as it enters the pipeline
  // ({{ take }}) and gives it back as it leaves the queue (cr_pop); cr_room_q, a flop, says
  // whether one is left. The queue holds one entry more than the {{ queue.depth }} credits,
  // so the entry at its write pointer is always free and is written every clock
  // (WriteAlways), with no enable, and its ready is not needed.
  localparam integer CrDepth = {{ queue.depth }};
  localparam integer CrUsedW = {{ queue.used_w }};
  localparam [CrUsedW-1:0] CrLastFree = {{ queue.last_free }};  // CrDepth - 1
  wire cr_pop = {{ out_valid }} & {{ out_ready }};
  reg [CrUsedW-1:0] cr_used_q;  // items taken and not yet out of the queue
  reg cr_room_q;  // cr_used_q != CrDepth
  wire cr_grow = {{ take }} & ~cr_pop;
  wire cr_hold = {{ take }} == cr_pop;
  wire [CrUsedW-1:0] cr_used_d = cr_used_q + {{ "{" }}{(CrUsedW - 1){1'b0}}, {{ take }}} - {{ "{" }}{(CrUsedW - 1){1'b0}}, cr_pop};
  // cr_used_d != CrDepth without the sum on the path: cr_used_q never passes CrDepth, so
  // cr_used_d reaches it only from CrDepth - 1 with one item more, or from CrDepth with as
  // many in as out.
  wire cr_room_d = ~((cr_grow & (cr_used_q == CrLastFree)) | (cr_hold & (cr_used_q == CrDepth[CrUsedW-1:0])));

  assign {{ room }} = cr_room_q;

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      cr_used_q <= {CrUsedW{1'b0}};
      cr_room_q <= 1'b1;
    end else begin
      cr_used_q <= cr_used_d;
      cr_room_q <= cr_room_d;
    end
  end

  {{ fifo }} #(
    .Width       ({{ w }}),
    .Depth       ({{ queue.entries }}),
    .WriteAlways (1)
  ) u_queue (
{%- call conn(in_valid, in_ready, in_data, out_valid, out_ready, out_data) %}{% endcall %}
  );
{%- endmacro %}
