% The sum of a list of digit images, as a recursion ProbLog tables (8 images read in seconds).
% countrss --problog knowledge/examples/deepproblog-sum-list.pl --query "sum([a, b, c, d, e, f, g, h], S)" --support by-label:100
nn(mnist_net, [X], Y, [0,1,2,3,4,5,6,7,8,9]) :: digit(X, Y).
sum([], 0).
sum([H|T], S) :- digit(H, N), sum(T, S1), S is N + S1.
