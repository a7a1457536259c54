set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'sheep.count'
set xrange [47:103]
set ylabel 'sheep.neighbours'
set yrange [1.7:63.3]
set cblabel 'success rate'
set cbrange [0:1]
set view map
set palette defined (0 '#b2182b', 0.5 '#f4a442', 1 '#2166ac')
splot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle
50 5 0.000000
50 10 0.000000
50 15 0.000000
50 20 0.050000
50 23 0.600000
50 25 0.900000
50 27 1.000000
50 30 1.000000
100 10 0.000000
100 20 0.000000
100 30 0.000000
100 40 0.500000
100 45 0.850000
100 50 0.950000
100 53 1.000000
100 60 1.000000
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
set xrange [47:103]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
50 784.0 784.0 784.0
50 571.5 517.8 944.0
50 547.0 506.0 574.8
50 538.5 512.8 591.0
50 539.5 518.5 582.0
100 1086.0 854.0 1545.0
100 754.0 641.0 808.0
100 664.0 629.5 714.0
100 659.5 628.2 710.0
100 666.0 642.8 714.2
e
