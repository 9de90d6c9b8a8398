% DeepProbLog's MNIST addition: two images, the label their sum.
% countrss --problog knowledge/examples/deepproblog-addition.pl --query "addition(a, b, Z)"
nn(mnist_net, [X], Y, [0,1,2,3,4,5,6,7,8,9]) :: digit(X, Y).
addition(X, Y, Z) :- digit(X, N1), digit(Y, N2), Z is N1 + N2.
