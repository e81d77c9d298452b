  input wire clk_i,
  input wire {{ rst.port }},
  input wire in_valid_i,
  output wire in_ready_o,
  input wire [Width-1:0] in_data_i,
  output wire out_valid_o,
  input wire out_ready_i,
  output wire [Width-1:0] out_data_o
