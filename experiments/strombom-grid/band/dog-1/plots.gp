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
50 25 1.000000
50 27 1.000000
50 30 1.000000
100 10 0.000000
100 20 0.000000
100 30 0.000000
100 40 0.650000
100 45 1.000000
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
50 785.0 763.0 836.0
50 746.5 698.8 802.8
50 757.5 697.8 818.0
50 763.5 714.8 800.5
100 948.0 827.0 1371.0
100 866.5 815.0 974.0
100 853.0 827.5 884.0
100 836.0 817.5 868.2
100 850.0 829.5 919.0
e
