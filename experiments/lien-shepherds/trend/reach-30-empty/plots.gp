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
10 5 0.950000
10 5 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
40 20 1.000000
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
10 321.5 237.2 425.2
10 335.5 304.0 594.5
10 259.5 241.5 305.5
10 462.0 299.5 849.0
10 284.0 250.0 705.2
20 286.5 256.5 366.0
20 361.0 280.5 586.2
20 286.0 249.8 304.5
20 349.0 282.5 393.0
20 265.5 248.5 301.8
40 278.5 271.5 361.5
40 316.0 289.2 426.8
40 265.0 258.5 323.0
40 296.0 279.2 348.2
40 268.5 261.8 305.2
e
