set terminal pngcairo size 1200,500 noenhanced
set output 'separation.png'
set grid
set key top left
set ylabel 'time steps to herd'
set yrange [0:2100]
set xrange [-0.5:2.5]
set multiplot layout 1,2
set title 'Environment without obstacles'
set xlabel 'separation tendency (rho_a x)'
set xtics ('small (x1)' 0, 'medium (x5)' 1, 'large (x10)' 2)
plot '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 1 title '1 shepherd', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 1 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 2 title '2 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 2 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 3 title '3 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 3 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 4 title '4 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 4 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 5 title '5 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 5 notitle
-0.24 658 556 1238
e
0.76 2000
1.76 2000
e
-0.12 297 276.5 316.75
0.88 668.5 635.25 725.75
1.88 710.5 689.25 753.25
e
e
0 284.5 272.75 309
1 650 640.75 659.75
2 694 683 704.5
e
e
0.12 285 270 293.75
1.12 644 633.75 654.5
2.12 691.5 680.75 708.5
e
e
0.24 267 259.75 280.25
1.24 643 639 650
2.24 704 697 707.25
e
e
set title 'Farm environment'
set xlabel 'separation tendency (rho_a x)'
set xtics ('small (x1)' 0, 'medium (x5)' 1, 'large (x10)' 2)
plot '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 1 title '1 shepherd', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 1 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 2 title '2 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 2 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 3 title '3 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 3 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 4 title '4 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 4 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 5 title '5 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 5 notitle
-0.24 1076 829.5 1185
e
0.76 2000
1.76 2000
e
-0.12 275 268 307.5
0.88 739 685 890.5
1.88 790 756.5 876.5
e
e
0 301 272.5 328.25
1 698 672.25 735
2 739 724.5 784.25
e
e
0.12 277.5 266 291
1.12 680 669.75 690.75
2.12 741.5 727 765.25
e
e
0.24 270 263 279.75
1.24 682.5 666.75 702.25
2.24 740 711.75 744.5
e
e
unset multiplot
