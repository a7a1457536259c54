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
40 20 0.400000
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
10 298.5 259.5 335.8
10 323.0 264.8 424.0
10 241.0 233.8 282.8
10 286.0 240.2 337.0
10 246.5 234.5 272.5
20 382.0 314.2 439.8
20 285.5 271.5 338.5
20 252.5 246.5 279.5
20 276.0 250.0 288.0
20 252.5 247.0 266.8
40 1124.0 690.5 1479.2
40 277.5 267.0 299.0
40 285.0 276.0 316.8
40 274.5 267.0 297.0
40 267.0 263.5 278.5
e
