  // ---------------------------------------------------------------------------------
  // Protocol properties, proven by Yosys (`read_verilog -formal`, `sat -tempinduct`).
  // The environment numbers its items (in_data_i is the count of items sent so far), so
  // a lost, duplicated or reordered item shows at the output as a wrong number.
  // f_occupancy (declared by the module) is how many items it holds.
  reg f_past_valid = 1'b0;
  reg [7:0] f_in_count;
  reg [7:0] f_out_count;
  reg f_stall_q;
  reg [Width-1:0] f_stall_data_q;
  wire [Width-1:0] f_in_seq = f_in_count;
  wire [Width-1:0] f_out_seq = f_out_count;
  wire [7:0] f_held = f_in_count - f_out_count;

  always @(posedge clk_i) begin
    f_past_valid <= 1'b1;
    if ({{ rst.active }}) begin
      f_in_count  <= 8'd0;
      f_out_count <= 8'd0;
      f_stall_q   <= 1'b0;
    end else begin
      f_in_count  <= f_in_count + {7'd0, in_valid_i & in_ready_o};
      f_out_count <= f_out_count + {7'd0, out_valid_o & out_ready_i};
      f_stall_q   <= out_valid_o & ~out_ready_i;
    end
    f_stall_data_q <= out_data_o;
  end

  always @(*) begin
    // Start in reset; then the environment sends numbered items.
    if (!f_past_valid) begin
      assume({{ rst.active }});
    end
    if (in_valid_i) begin
      assume(in_data_i == f_in_seq);
    end
    if (f_past_valid && !({{ rst.active }})) begin
      // No loss, no duplication: what went in and has not come out is held inside.
      assert(f_held == f_occupancy);
      // Order: the item offered is the next one in sequence.
      if (out_valid_o) begin
        assert(out_data_o == f_out_seq);
      end
      // A stalled output holds its valid and its data.
      if (f_stall_q) begin
        assert(out_valid_o);
        assert(out_data_o == f_stall_data_q);
      end
    end
  end
