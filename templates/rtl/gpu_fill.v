{{ stamp }}
// {{ name }}: the texture cache's line fills as requester "{{ requester }}"'s bursts. A line of
// {{ line_beats }} beats is longer than the requester's bursts, so each fill (a line's byte address)
// becomes {{ bursts }} read bursts of {{ burst }} beats at consecutive addresses; the arbiter returns a
// requester's reads in order, so the line's beats come back as the cache expects them.
// One line at a time: req_ready_o is low while its bursts are requested.
// Combinational paths: none; every output comes from flops.
module {{ name }} #(
  // Bursts a line and their bytes: the top sets them from the cache's line and the
  // requester's bursts.
  parameter integer Bursts = {{ bursts }},
  parameter integer BurstBytes = {{ burst_bytes }}
) (
  input  wire clk_i,
  input  wire {{ rst.port }},
  input  wire req_valid_i,
  output wire req_ready_o,
  input  wire [31:0] req_addr_i,
  output wire mem_req_valid_o,
  input  wire mem_req_ready_i,
  output wire [{{ req_bits - 1 }}:0] mem_req_data_o
);

  localparam integer LenW       = {{ len_bits }};
  localparam integer CntW       = (Bursts > 1) ? $clog2(Bursts) : 1;
  localparam integer LastIdx    = Bursts - 1;
  localparam [CntW-1:0] LastBurst = LastIdx[CntW-1:0];
  localparam [31:0]  Step       = BurstBytes;
  localparam [LenW-1:0] Len     = {{ burst - 1 }};
{%- for f in req_lsbs %}
  localparam integer {{ f.0 }} = {{ f.1 }};
{%- endfor %}

  reg            busy_q;  // a line's bursts are being requested
  reg [31:0]     addr_q;  // the next burst's address
  reg [CntW-1:0] n_q;     // bursts of the line requested so far

  assign req_ready_o     = ~busy_q;
  assign mem_req_valid_o = busy_q;
  assign mem_req_data_o[ReqAddrLsb +: 32]  = addr_q;
  assign mem_req_data_o[ReqLenLsb +: LenW] = Len;

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      busy_q <= 1'b0;
      n_q    <= {CntW{1'b0}};
    end else if (req_valid_i && !busy_q) begin
      busy_q <= 1'b1;
      n_q    <= {CntW{1'b0}};
    end else if (busy_q && mem_req_ready_i) begin
      busy_q <= n_q != LastBurst;
      n_q    <= n_q + 1'b1;
    end
  end

  always @(posedge clk_i) begin
    if (req_valid_i && !busy_q) begin
      addr_q <= req_addr_i;
    end else if (busy_q && mem_req_ready_i) begin
      addr_q <= addr_q + Step;
    end
  end

endmodule
