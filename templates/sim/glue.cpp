{{ stamp }}
// Verilator glue for unit `{{ unit }}`: binds the ports of {{ top }} to the shared harness
// (sim/harness/harness.h). Ports are registered in the unit's port order, which fixes the
// random stream each one draws from.
#include "V{{ top }}.h"
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
  return bench.run(ctx, top, top.clk_i, top.{{ rst_port }}, {{ rst_active_low }});
}
