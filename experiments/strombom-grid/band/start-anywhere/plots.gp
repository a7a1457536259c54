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
50 10 0.050000
50 15 0.000000
50 20 0.100000
50 23 0.800000
50 25 1.000000
50 27 1.000000
50 30 1.000000
100 10 0.000000
100 20 0.000000
100 30 0.050000
100 40 0.500000
100 45 0.800000
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
50 839.0 839.0 839.0
50 583.5 563.8 603.2
50 581.0 525.2 697.5
50 581.0 488.2 672.2
50 571.5 487.5 696.8
50 606.0 518.8 692.5
100 2840.0 2840.0 2840.0
100 732.5 597.8 1224.0
100 612.0 565.2 814.0
100 596.0 554.2 735.2
100 596.0 559.8 703.8
100 565.5 518.0 618.2
e
