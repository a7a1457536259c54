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
50 20 0.000000
50 23 0.100000
50 25 0.650000
50 27 1.000000
50 30 1.000000
100 10 0.000000
100 20 0.000000
100 30 0.000000
100 40 0.100000
100 45 0.800000
100 50 0.950000
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
50 4498.0 4498.0 4498.0
50 705.0 642.0 768.0
50 585.0 551.0 702.0
50 586.0 553.5 667.5
50 573.5 543.0 669.8
100 974.5 787.8 1161.2
100 771.5 661.8 923.0
100 727.0 650.0 793.0
100 724.0 671.5 774.0
100 737.0 672.5 758.2
e
