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
100 37 0.100000
100 53 1.000000
100 75 1.000000
100 99 1.000000
200 74 0.500000
200 106 1.000000
200 150 1.000000
200 199 1.000000
300 111 0.150000
300 159 0.550000
300 225 0.700000
300 299 1.000000
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
100 2277.5 2173.8 2381.2
100 669.0 658.2 721.2
100 707.5 685.0 766.0
100 751.0 704.0 849.5
200 1811.5 1404.5 2245.8
200 1439.0 1233.5 1577.8
200 1348.0 1093.5 1581.0
200 838.5 753.0 914.0
300 3992.0 3193.5 4437.5
300 3488.0 3341.5 3648.5
300 2623.5 1743.8 3730.0
300 1385.5 1272.5 1516.0
e
