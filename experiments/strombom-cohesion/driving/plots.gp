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
150 50 0.000000
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
20 558.0 522.5 592.2
e
30 567.0 545.0 613.2
e
50 573.0 544.5 634.0
e
75 661.0 622.0 683.2
e
100 656.0 628.8 703.2
e
e
e
e
