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
10 5 0.850000
10 5 1.000000
10 5 1.000000
10 5 1.000000
10 5 1.000000
20 10 0.950000
20 10 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
40 20 0.000000
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
10 351.0 264.0 719.0
10 576.0 359.0 868.5
10 380.5 277.8 408.5
10 403.0 339.8 566.5
10 293.5 282.5 388.5
20 391.0 351.0 505.0
20 398.0 363.2 462.5
20 283.0 271.0 363.0
20 333.5 318.8 349.2
20 305.0 290.8 348.0
40 397.5 341.2 431.5
40 331.0 311.8 375.8
40 319.5 307.5 328.8
40 312.0 298.0 320.0
e
