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
100 37 0.450000
100 53 1.000000
100 75 1.000000
100 99 1.000000
200 74 0.850000
200 106 1.000000
200 150 1.000000
200 199 1.000000
300 111 0.450000
300 159 0.400000
300 225 0.300000
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
100 889.0 825.0 971.0
100 719.5 672.5 750.8
100 683.5 640.0 725.2
100 759.5 701.2 871.2
200 1319.0 839.0 1920.0
200 837.0 778.2 1095.0
200 857.5 804.5 1293.0
200 813.5 773.8 834.5
300 3584.0 2966.0 4062.0
300 1604.5 1194.0 3181.8
300 3270.0 1511.8 3868.0
300 882.5 810.0 998.0
e
