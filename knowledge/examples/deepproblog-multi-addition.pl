% DeepProbLog's multi-digit addition: two numbers written digit by digit, the label their sum.
% countrss --problog knowledge/examples/deepproblog-multi-addition.pl --query "multi_addition([a, b], [c, d], Z)"
nn(mnist_net, [X], Y, [0,1,2,3,4,5,6,7,8,9]) :: digit(X, Y).
number([], Result, Result).
number([H|T], Acc, Result) :- digit(H, Nr), Acc2 is Nr + 10 * Acc, number(T, Acc2, Result).
number(X, Y) :- number(X, 0, Y).
multi_addition(X, Y, Z) :- number(X, X2), number(Y, Y2), Z is X2 + Y2.
