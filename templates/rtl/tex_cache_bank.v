{{ stamp }}
// {{ name }}: one data bank of the texture cache, a simple dual-port RAM.
//
// One write port (line fills) and one read port (texel reads), synchronous read: the
// form FPGA tools map to block RAM and ASIC flows swap for a macro. Reads and writes
// never meet at one address (a line being filled is not read), so the read-during-write
// behaviour is left to the RAM: `no_rw_check` tells synthesis so. Without it Yosys keeps
// a RAM's old data on a collision with a bypass of its own (on an ECP5, 49 LUT4 and 74
// flops per bank, between the RAM's output and its output register).
{%- if out_reg %}
// Latency 2 clocks (rdata_o two clocks after re_i): the RAM's read register, then its
// output register, so the RAM's clock-to-out does not start a path (ECP5's DP16KD takes
// 5.6 ns without it). No reset: datapath only.
{%- else %}
// Latency 1 clock (rdata_o the clock after re_i): at this clock target the RAM's
// clock-to-out fits in the period with the logic after it. No reset: datapath only.
{%- endif %}
module {{ name }} #(
  parameter integer Width = {{ width }},
  parameter integer Depth = {{ depth }},
  parameter integer AddrW = {{ addr_w }}
) (
  input wire clk_i,
  input wire we_i,
  input wire [AddrW-1:0] waddr_i,
  input wire [Width-1:0] wdata_i,
  input wire re_i,
  input wire [AddrW-1:0] raddr_i,
  output wire [Width-1:0] rdata_o
);

  (* no_rw_check *)
  reg [Width-1:0] mem_q [0:Depth-1];
  reg [Width-1:0] rdata_q;
{%- if out_reg %}
  reg [Width-1:0] out_q;
{%- endif %}

  always @(posedge clk_i) begin
    if (we_i) begin
      mem_q[waddr_i] <= wdata_i;
    end
  end

  always @(posedge clk_i) begin
    if (re_i) begin
      rdata_q <= mem_q[raddr_i];
    end
  end

{%- if out_reg %}

  always @(posedge clk_i) begin
    out_q <= rdata_q;
  end

  assign rdata_o = out_q;
{%- else %}

  assign rdata_o = rdata_q;
{%- endif %}

endmodule
