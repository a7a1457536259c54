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
50 15 0.000000
50 20 0.000000
50 23 0.450000
50 25 0.950000
50 27 1.000000
50 30 1.000000
100 10 0.000000
100 20 0.000000
100 30 0.000000
100 40 0.700000
100 45 0.900000
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
50 579.0 519.0 957.0
50 573.0 514.5 608.5
50 544.0 518.2 612.2
50 557.5 521.0 614.8
100 750.5 702.5 1202.2
100 692.5 628.5 730.8
100 658.0 617.0 689.5
100 658.5 635.5 709.5
100 660.0 629.5 697.5
e
