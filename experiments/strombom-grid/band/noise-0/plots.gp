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
50 23 0.700000
50 25 0.900000
50 27 1.000000
50 30 1.000000
100 10 0.000000
100 20 0.000000
100 30 0.000000
100 40 0.500000
100 45 0.950000
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
50 519.0 500.5 587.5
50 529.0 501.8 625.2
50 526.0 500.5 546.2
50 526.5 512.5 570.5
100 1061.0 1045.8 1537.0
100 686.0 645.5 1049.0
100 665.5 625.5 756.0
100 680.5 651.5 727.0
100 655.5 620.5 667.0
e
