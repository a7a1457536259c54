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
100 37 0.400000
100 53 1.000000
100 75 1.000000
100 99 1.000000
200 74 0.700000
200 106 1.000000
200 150 1.000000
200 199 1.000000
300 111 0.500000
300 159 0.350000
300 225 0.450000
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
100 808.0 747.0 902.5
100 714.0 649.8 775.0
100 710.0 673.2 753.8
100 750.5 693.8 828.2
200 1306.0 885.8 1408.8
200 943.5 866.2 1326.0
200 840.5 774.5 1081.5
200 784.5 740.5 916.0
300 3961.5 3300.0 4177.8
300 2739.0 1894.5 3675.5
300 2634.0 1685.0 4235.0
300 902.0 821.0 1097.0
e
