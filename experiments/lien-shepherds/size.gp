set terminal pngcairo size 1200,500 noenhanced
set output 'size.png'
set grid
set key top left
set ylabel 'time steps to herd'
set yrange [0:2100]
set xrange [-0.5:2.5]
set multiplot layout 1,2
set title 'Environment without obstacles'
set xlabel 'number of flock members'
set xtics ('10' 0, '20' 1, '40' 2)
plot '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 1 title '1 shepherd', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 1 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 2 title '2 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 2 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 3 title '3 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 3 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 4 title '4 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 4 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 5 title '5 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 5 notitle
-0.24 296.5 268 335.5
0.76 371 291.25 446.25
1.76 986 904 1503
e
e
-0.12 299 265.75 388
0.88 310.5 275.5 326
1.88 291.5 281 332.25
e
e
0 246.5 234 278.25
1 272 241.5 293
2 300 274.25 318.25
e
e
0.12 252.5 243.75 267
1.12 269.5 259.25 284.5
2.12 277.5 263.75 292.5
e
e
0.24 241 234 266.75
1.24 257 246.5 280
2.24 266.5 262.25 274
e
e
set title 'Farm environment'
set xlabel 'number of flock members'
set xtics ('10' 0, '20' 1, '40' 2)
plot '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 1 title '1 shepherd', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 1 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 2 title '2 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 2 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 3 title '3 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 3 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 4 title '4 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 4 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 5 title '5 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 5 notitle
-0.24 298.5 259.5 335.75
0.76 382 314.25 439.75
1.76 1124 690.5 1479.25
e
e
-0.12 323 264.75 424
0.88 285.5 271.5 338.5
1.88 277.5 267 299
e
e
0 241 233.75 282.75
1 252.5 246.5 279.5
2 285 276 316.75
e
e
0.12 286 240.25 337
1.12 276 250 288
2.12 274.5 267 297
e
e
0.24 246.5 234.5 272.5
1.24 252.5 247 266.75
2.24 267 263.5 278.5
e
e
unset multiplot
