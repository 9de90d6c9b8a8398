% Handwritten formulas: a digit, an operator and a digit, the label the value.
% countrss --problog knowledge/examples/deepproblog-formula.pl --query "formula(x, o, y, R)"
nn(net_digit, [X], Y, [0,1,2,3,4,5,6,7,8,9]) :: digit(X, Y).
nn(net_operator, [X], Y, [plus, minus, times]) :: operator(X, Y).
apply(A, plus, B, R) :- R is A + B.
apply(A, minus, B, R) :- R is A - B.
apply(A, times, B, R) :- R is A * B.
formula(X, O, Y, R) :- digit(X, A), operator(O, Op), digit(Y, B), apply(A, Op, B, R).
