set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'sheep.count'
set xrange [8.2:41.8]
set ylabel 'sheep.neighbours'
set yrange [4.1:20.9]
set cblabel 'success rate'
set cbrange [0:1]
set view map
set palette defined (0 '#b2182b', 0.5 '#f4a442', 1 '#2166ac')
splot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle
10 5 1.000000
10 5 1.000000
10 5 1.000000
10 5 1.000000
10 5 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
40 20 0.350000
40 20 0.950000
40 20 1.000000
40 20 1.000000
40 20 1.000000
e
unset view
unset cblabel
set autoscale
set ytics auto
set output 'steps.png.part'
set title 'steps to success: median and quartiles'
set autoscale y
set ylabel 'steps (successful runs)'
set xlabel 'sheep.count'
set xrange [8.2:41.8]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
10 301.0 262.5 354.0
10 288.5 262.8 426.2
10 239.5 236.5 283.2
10 268.0 239.8 301.2
10 245.5 235.8 286.2
20 376.0 304.8 405.8
20 299.5 272.2 377.2
20 253.0 246.0 265.2
20 280.0 244.8 292.2
20 251.5 247.8 263.0
40 1076.0 829.5 1185.0
40 275.0 268.0 307.5
40 301.0 272.5 328.2
40 277.5 266.0 291.0
40 270.0 263.0 279.8
e
