{%- if idx_w > 0 %}
  function [BankW-1:0] bank_of(input [OffW-1:0] off);
    reg unused_off;  // the bits of the index in the bank
    begin
      unused_off = ^off;
      bank_of    = {{ bank_expr }};
    end
  endfunction
{%- else %}
  function [BankW-1:0] bank_of(input [OffW-1:0] off);
    bank_of = {{ bank_expr }};
  endfunction
{%- endif %}
