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
2 1 0.450000
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
2 658.0 556.0 1238.0
2 297.0 276.5 316.8
2 284.5 272.8 309.0
2 285.0 270.0 293.8
2 267.0 259.8 280.2
10 668.5 635.2 725.8
10 650.0 640.8 659.8
10 644.0 633.8 654.5
10 643.0 639.0 650.0
20 710.5 689.2 753.2
20 694.0 683.0 704.5
20 691.5 680.8 708.5
20 704.0 697.0 707.2
e
