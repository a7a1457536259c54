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
40 20 0.450000
40 20 1.000000
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
10 296.5 268.0 335.5
10 299.0 265.8 388.0
10 246.5 234.0 278.2
10 252.5 243.8 267.0
10 241.0 234.0 266.8
20 371.0 291.2 446.2
20 310.5 275.5 326.0
20 272.0 241.5 293.0
20 269.5 259.2 284.5
20 257.0 246.5 280.0
40 986.0 904.0 1503.0
40 291.5 281.0 332.2
40 300.0 274.2 318.2
40 277.5 263.8 292.5
40 266.5 262.2 274.0
e
