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
50 15 0.050000
50 20 0.050000
50 23 0.700000
50 25 0.950000
50 27 1.000000
50 30 1.000000
100 10 0.000000
100 20 0.000000
100 30 0.000000
100 40 0.300000
100 45 0.850000
100 50 1.000000
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
50 610.0 610.0 610.0
50 519.0 519.0 519.0
50 405.0 388.0 445.5
50 409.0 390.5 445.5
50 419.0 394.5 454.5
50 430.5 401.8 480.2
100 889.5 631.8 1397.0
100 606.0 527.0 743.0
100 540.5 497.0 571.5
100 527.0 489.2 580.0
100 556.0 498.2 626.5
e
