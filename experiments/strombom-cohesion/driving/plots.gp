set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'sheep.count'
set xrange [3.2:316.8]
set ylabel 'sheep.neighbours'
set yrange [17.14:51.86]
set cblabel 'success rate'
set cbrange [0:1]
set view map
set palette defined (0 '#b2182b', 0.5 '#f4a442', 1 '#2166ac')
splot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle
20 19 1.000000
30 29 1.000000
50 49 1.000000
75 50 1.000000
100 50 1.000000
150 50 0.050000
200 50 0.000000
300 50 0.000000
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
set xrange [3.2:316.8]
plot '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 19', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 29', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 49', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 50', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 50', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 50', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 50', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 50'
20 570.0 523.5 595.5
e
30 569.5 532.5 595.8
e
50 573.0 542.2 623.8
e
75 653.0 630.2 677.0
e
100 658.0 617.0 689.5
e
150 1580.0 1580.0 1580.0
e
e
e
