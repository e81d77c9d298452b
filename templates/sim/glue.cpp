{{ stamp }}
// Verilator glue for unit `{{ unit }}`: binds the ports of {{ top }} to the shared harness
// (sim/harness/harness.h). Ports are registered in the unit's port order, which fixes the
// random stream each one draws from.
#include "V{{ top }}.h"
{%- if !probes.is_empty() %}
#include "V{{ top }}___024root.h"
{%- endif %}
#include "harness.h"

int main(int argc, char** argv) {
  gpurtl::Bench bench("{{ unit }}", argc, argv);
  VerilatedContext ctx;
  // Flops without reset start random, so a design that relies on zeros fails here.
  ctx.randReset(2);
  ctx.randSeed(static_cast<int>(bench.options().seed & 0x7fffffffu));
  V{{ top }} top{&ctx};
{% for p in ports %}
{%- if p.input %}
  bench.add_input("{{ p.name }}", {{ p.width }}, &top.{{ p.name }}_valid_i, &top.{{ p.name }}_ready_o,
                  [&top](const gpurtl::Word& w) { gpurtl::put(top.{{ p.name }}_data_i, w); });
{%- else %}
  bench.add_output("{{ p.name }}", {{ p.width }}, &top.{{ p.name }}_valid_o, &top.{{ p.name }}_ready_i,
                   [&top]() { return gpurtl::get(top.{{ p.name }}_data_o, {{ p.width }}); });
{%- endif %}
{%- endfor %}
{%- for m in mem_ports %}
  bench.add_memory("{{ m.name }}", {{ m.addr_width }}, {{ m.data_width }}, {{ m.beats }},
                   &top.{{ m.name }}_req_valid_o, &top.{{ m.name }}_req_ready_i,
                   [&top]() { return gpurtl::get(top.{{ m.name }}_req_addr_o, {{ m.addr_width }}); },
                   &top.{{ m.name }}_rsp_valid_i, &top.{{ m.name }}_rsp_ready_o,
                   [&top](const gpurtl::Word& w) { gpurtl::put(top.{{ m.name }}_rsp_data_i, w); });
{%- endfor %}
{%- for m in rw_mem_ports %}
  {
    gpurtl::RwMemBinding b;
    b.req_valid = &top.{{ m.name }}_req_valid_o;
    b.req_ready = &top.{{ m.name }}_req_ready_i;
    b.req_addr = [&top]() { return gpurtl::get(top.{{ m.name }}_req_addr_o, {{ m.addr_width }}); };
    b.req_len = [&top]() { return gpurtl::get(top.{{ m.name }}_req_len_o, {{ m.len_width }}); };
    b.req_write = [&top]() { return gpurtl::get(top.{{ m.name }}_req_write_o, 1); };
    b.req_id = [&top]() { return gpurtl::get(top.{{ m.name }}_req_id_o, {{ m.id_width }}); };
    b.wdata_valid = &top.{{ m.name }}_wdata_valid_o;
    b.wdata_ready = &top.{{ m.name }}_wdata_ready_i;
    b.wdata = [&top]() { return gpurtl::get(top.{{ m.name }}_wdata_data_o, {{ m.wdata_width }}); };
    b.rdata_valid = &top.{{ m.name }}_rdata_valid_i;
    b.rdata_ready = &top.{{ m.name }}_rdata_ready_o;
    b.set_rdata = [&top](const gpurtl::Word& w) { gpurtl::put(top.{{ m.name }}_rdata_data_i, w); };
    bench.add_rw_memory("{{ m.name }}", {{ m.addr_width }}, {{ m.len_width }}, {{ m.id_width }}, {{ m.data_width }},
                        {{ m.wdata_width }}, {{ m.wdata_data_lsb }}, {{ m.wdata_strb_lsb }}, std::move(b));
  }
{%- endfor %}
{%- for q in probes %}
  bench.add_probe("{{ q.name }}",
                  [&top]() { return static_cast<uint64_t>(top.rootp->{{ top }}__DOT__{{ q.verilated() }}); },
                  { {% for s in q.states %}{ {{ s.0 }}, "{{ s.1 }}" }{% if !loop.last %}, {% endif %}{% endfor %} });
{%- endfor %}
  return bench.run(ctx, top, top.clk_i, top.{{ rst_port }}, {{ rst_active_low }});
}
