{#- A bank's parity class and its index in the class (TexCache::bank_classes): included
   by the cache's top and its read plan, whose structs both carry class_expr, index_expr
   and index_w. #}
  localparam integer IndexW = {{ cls.index_w }};

  function [1:0] class_of(input [BankW-1:0] b);
    reg unused_b;  // the bits index_of takes
    begin
      unused_b = ^b;
      class_of = {{ cls.class_expr }};
    end
  endfunction

  function [IndexW-1:0] index_of(input [BankW-1:0] b);
    reg unused_b;  // the bits class_of takes
    begin
      unused_b = ^b;
      index_of = {{ cls.index_expr }};
    end
  endfunction
