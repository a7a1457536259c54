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
200 74 0.450000
200 106 0.950000
200 150 1.000000
200 199 1.000000
300 111 0.300000
300 159 0.250000
300 225 0.250000
300 299 0.900000
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
100 967.0 836.5 1097.5
100 656.5 625.0 721.0
100 664.0 642.2 704.0
100 704.5 667.8 755.2
200 1930.0 1818.0 2646.0
200 1308.0 1178.0 1516.0
200 1143.5 962.0 1300.2
200 791.5 730.2 1092.2
300 4404.0 3789.8 4647.0
300 4583.0 3566.0 4602.0
300 3094.0 2347.0 3992.0
300 1273.5 1121.5 1996.2
e
