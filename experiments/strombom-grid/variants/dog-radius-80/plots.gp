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
100 37 0.200000
100 53 1.000000
100 75 1.000000
100 99 1.000000
200 74 0.550000
200 106 0.950000
200 150 1.000000
200 199 1.000000
300 111 0.050000
300 159 0.750000
300 225 0.800000
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
100 1001.0 824.5 1170.5
100 711.0 692.2 764.8
100 712.0 689.0 739.8
100 740.5 721.2 789.8
200 2082.0 1557.0 3025.0
200 1431.0 1302.5 1518.0
200 1225.5 990.5 1401.5
200 928.5 794.5 1101.8
300 4391.0 4391.0 4391.0
300 3454.0 3060.0 3884.5
300 3320.5 1744.5 3833.8
300 1373.5 1250.5 1461.5
e
