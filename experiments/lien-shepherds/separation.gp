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
-0.24 986 904 1503
e
0.76 2000
1.76 2000
e
-0.12 291.5 281 332.25
0.88 668 646.75 711.5
1.88 718 690.75 748.75
e
e
0 300 274.25 318.25
1 643.5 640.5 653.25
2 686 680.75 702
e
e
0.12 277.5 263.75 292.5
1.12 646 636.25 651.25
2.12 695.5 681.25 710
e
e
0.24 266.5 262.25 274
1.24 644.5 634 655
2.24 698 691.25 702
e
e
set title 'Farm environment'
set xlabel 'separation tendency (rho_a x)'
set xtics ('small (x1)' 0, 'medium (x5)' 1, 'large (x10)' 2)
plot '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 1 title '1 shepherd', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 1 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 2 title '2 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 2 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 3 title '3 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 3 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 4 title '4 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 4 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 5 title '5 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 5 notitle
-0.24 1124 690.5 1479.25
e
0.76 2000
1.76 2000
e
-0.12 277.5 267 299
0.88 734 699.75 964.5
1.88 783 751 955
e
e
0 285 276 316.75
1 685.5 669.75 770.25
2 746.5 732.5 777.25
e
e
0.12 274.5 267 297
1.12 680 672.75 703.75
2.12 731 724.25 761
e
e
0.24 267 263.5 278.5
1.24 687 670.25 702.25
2.24 744 723.75 753.25
e
e
unset multiplot
