set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'sheep.count'
set xrange [88:312]
set ylabel 'sheep.neighbours'
set yrange [21.28:314.72]
set cblabel 'success rate'
set cbrange [0:1]
set view map
set palette defined (0 '#b2182b', 0.5 '#f4a442', 1 '#2166ac')
splot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle
100 37 0.150000
100 53 0.900000
100 75 1.000000
100 99 1.000000
200 74 0.150000
200 106 0.900000
200 150 1.000000
200 199 1.000000
300 111 0.250000
300 159 0.150000
300 225 0.400000
300 299 0.850000
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
set xrange [88:312]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
100 1070.0 1005.5 1425.5
100 672.5 653.2 688.8
100 662.5 648.8 727.5
100 729.5 668.2 761.8
200 2031.0 1668.5 2113.5
200 1547.0 1341.8 1810.8
200 1172.5 929.2 1421.5
200 769.5 733.2 904.2
300 3093.0 2635.0 4738.0
300 3206.0 2811.0 3342.5
300 3282.5 1929.8 4108.8
300 1300.0 1227.0 1335.0
e
