set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'sheep.repulsion'
set xrange [0.92:21.08]
set ylabel 'agents[0].count'
set yrange [0.76:5.24]
set cblabel 'success rate'
set cbrange [0:1]
set view map
set palette defined (0 '#b2182b', 0.5 '#f4a442', 1 '#2166ac')
splot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle
2 1 0.400000
2 2 1.000000
2 3 1.000000
2 4 1.000000
2 5 1.000000
10 1 0.000000
10 2 1.000000
10 3 1.000000
10 4 1.000000
10 5 1.000000
20 1 0.000000
20 2 1.000000
20 3 1.000000
20 4 1.000000
20 5 1.000000
e
unset view
unset cblabel
set autoscale
set ytics auto
set output 'steps.png.part'
set title 'steps to success: median and quartiles'
set autoscale y
set ylabel 'steps (successful runs)'
set xlabel 'sheep.repulsion'
set xrange [0.92:21.08]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
2 1124.0 690.5 1479.2
2 277.5 267.0 299.0
2 285.0 276.0 316.8
2 274.5 267.0 297.0
2 267.0 263.5 278.5
10 734.0 699.8 964.5
10 685.5 669.8 770.2
10 680.0 672.8 703.8
10 687.0 670.2 702.2
20 783.0 751.0 955.0
20 746.5 732.5 777.2
20 731.0 724.2 761.0
20 744.0 723.8 753.2
e
