{{ stamp }}
// {{ name }}: two-entry skid buffer (a fully registered valid/ready slice).
//
// An output register and a skid register. While the output flows the skid stays empty;
// when out_ready_i drops, the item that was already accepted lands in the skid, and
// in_ready_o falls one clock later. When the output drains, the skid moves up first.
// Latency 1 clock; throughput 1 item per clock.
// Combinational paths: none. in_ready_o, out_valid_o and out_data_o all come from flops,
// so this breaks the ready path as well as the data path.
// Cost: 2 x Width data flops (no reset), 3 control flops (reset), a Width-bit 2:1 mux.
module {{ name }} #(
  parameter integer Width = {{ width }}
) (
{% include "rtl/hs_ports.v" %}
);

  reg out_valid_q;
  reg out_valid_d;
  reg [Width-1:0] out_data_q;
  reg [Width-1:0] out_data_d;
  reg out_load;
  reg skid_valid_q;
  reg skid_valid_d;
  reg [Width-1:0] skid_data_q;
  // A copy of ~skid_valid_q that drives only the skid's data enables, so that fanout does
  // not load the flop on the ready path (`keep`: synthesis would merge the twins).
  (* keep *) reg skid_free_q;

  // Registered: the skid being empty is what lets an item in.
  assign in_ready_o = ~skid_valid_q;

  always @(*) begin
    // One 2:1 mux per bit; the output register loads whenever it is free, whether or not
    // an item comes, so no valid bit reaches the data flops' enables (an empty register's
    // data is never looked at).
    out_data_d   = skid_valid_q ? skid_data_q : in_data_i;
    out_load     = out_ready_i | ~out_valid_q;
    out_valid_d  = out_valid_q;
    skid_valid_d = skid_valid_q;
    if (out_load) begin
      // The output register is free this clock: refill it, skid first.
      out_valid_d  = skid_valid_q | in_valid_i;
      skid_valid_d = 1'b0;
    end else if (in_valid_i & ~skid_valid_q) begin
      // Output held: the item accepted this clock waits in the skid.
      skid_valid_d = 1'b1;
    end
  end

  always @(posedge clk_i{{ rst.edge }}) begin
    if ({{ rst.active }}) begin
      out_valid_q  <= 1'b0;
      skid_valid_q <= 1'b0;
      skid_free_q  <= 1'b1;
    end else begin
      out_valid_q  <= out_valid_d;
      skid_valid_q <= skid_valid_d;
      skid_free_q  <= ~skid_valid_d;
    end
  end

  // Datapath: no reset. The skid copies the input whenever it is empty (its enable is a
  // flop); it keeps the copy only when its valid bit is set.
  always @(posedge clk_i) begin
    if (out_load) begin
      out_data_q <= out_data_d;
    end
    if (skid_free_q) begin
      skid_data_q <= in_data_i;
    end
  end

  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_data_q;

`ifdef FORMAL
  wire [7:0] f_occupancy = {7'd0, out_valid_q} + {7'd0, skid_valid_q};
{% include "rtl/hs_formal.v" %}
  always @(*) begin
    if (f_past_valid && !({{ rst.active }})) begin
      // in_ready_o is a flop: it is exactly the skid being empty.
      assert(in_ready_o == ~skid_valid_q);
      assert(skid_free_q == ~skid_valid_q);
      // The skid only fills behind a held output, with the item after it.
      if (skid_valid_q) begin
        assert(out_valid_q);
        assert(skid_data_q == f_out_seq + 1'b1);
      end
    end
  end
`endif
endmodule
