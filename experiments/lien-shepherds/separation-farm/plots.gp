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
2 1 0.350000
2 2 0.950000
2 3 1.000000
2 4 1.000000
2 5 1.000000
10 1 0.000000
10 2 0.950000
10 3 1.000000
10 4 1.000000
10 5 1.000000
20 1 0.000000
20 2 0.950000
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
2 1076.0 829.5 1185.0
2 275.0 268.0 307.5
2 301.0 272.5 328.2
2 277.5 266.0 291.0
2 270.0 263.0 279.8
10 739.0 685.0 890.5
10 698.0 672.2 735.0
10 680.0 669.8 690.8
10 682.5 666.8 702.2
20 790.0 756.5 876.5
20 739.0 724.5 784.2
20 741.5 727.0 765.2
20 740.0 711.8 744.5
e
