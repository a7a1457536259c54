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
-0.24 292.5 265.75 330.5
0.76 390.5 295.75 461.75
1.76 658 556 1238
e
e
-0.12 306.5 266.75 446.75
0.88 311.5 273 324.5
1.88 297 276.5 316.75
e
e
0 250 237.25 282
1 254 239.75 276.25
2 284.5 272.75 309
e
e
0.12 253 245 262
1.12 277.5 261 300
2.12 285 270 293.75
e
e
0.24 238.5 231.75 266
1.24 255.5 245.75 275.25
2.24 267 259.75 280.25
e
e
set title 'Farm environment'
set xlabel 'number of flock members'
set xtics ('10' 0, '20' 1, '40' 2)
plot '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 1 title '1 shepherd', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 1 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 2 title '2 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 2 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 3 title '3 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 3 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 4 title '4 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 4 notitle, '-' using 1:2:3:4 with yerrorbars pointtype 7 lc 5 title '5 shepherds', '-' using 1:2 with points pointtype 6 pointsize 1.5 lc 5 notitle
-0.24 301 262.5 354
0.76 376 304.75 405.75
1.76 1076 829.5 1185
e
e
-0.12 288.5 262.75 426.25
0.88 299.5 272.25 377.25
1.88 275 268 307.5
e
e
0 239.5 236.5 283.25
1 253 246 265.25
2 301 272.5 328.25
e
e
0.12 268 239.75 301.25
1.12 280 244.75 292.25
2.12 277.5 266 291
e
e
0.24 245.5 235.75 286.25
1.24 251.5 247.75 263
2.24 270 263 279.75
e
e
unset multiplot
