set terminal pngcairo size 1000,650 noenhanced
set output 'success.png'
set grid
set logscale x
set xlabel 'N (sheep)'
set ylabel 'runs herded'
set yrange [-0.05:1.05]
set key outside right
set title 'herding success over flock size'
plot '-' using 1:2 with linespoints lw 2 pointtype 4 title 'strombom, 1 dog', '-' using 1:2 with linespoints lw 2 pointtype 5 title 'within-reach, 1 dog', '-' using 1:2 with linespoints lw 2 pointtype 6 title 'sectors, 2 dogs', '-' using 1:2 with linespoints lw 2 pointtype 6 title 'sectors, 4 dogs', '-' using 1:2 with linespoints lw 2 pointtype 6 title 'sectors, 8 dogs', '-' using 1:2 with linespoints lw 2 pointtype 6 title 'sectors, 16 dogs', '-' using 1:2 with linespoints lw 2 pointtype 7 title 'arc, 2 dogs', '-' using 1:2 with linespoints lw 2 pointtype 7 title 'arc, 4 dogs', '-' using 1:2 with linespoints lw 2 pointtype 7 title 'arc, 8 dogs', '-' using 1:2 with linespoints lw 2 pointtype 7 title 'arc, 16 dogs', '-' using 1:2 with linespoints lw 2 pointtype 8 title 'ring, 2 dogs', '-' using 1:2 with linespoints lw 2 pointtype 8 title 'ring, 4 dogs', '-' using 1:2 with linespoints lw 2 pointtype 8 title 'ring, 8 dogs', '-' using 1:2 with linespoints lw 2 pointtype 8 title 'ring, 16 dogs', '-' using 1:2 with linespoints lw 2 pointtype 9 title 'lien, 2 dogs', '-' using 1:2 with linespoints lw 2 pointtype 9 title 'lien, 4 dogs', '-' using 1:2 with linespoints lw 2 pointtype 9 title 'lien, 8 dogs', '-' using 1:2 with linespoints lw 2 pointtype 9 title 'lien, 16 dogs'
100 1.0000
1000 0.0000
e
100 1.0000
1000 0.0000
e
100 1.0000
1000 0.3000
e
100 1.0000
1000 0.9500
e
100 1.0000
1000 0.0000
e
100 1.0000
1000 0.0000
e
100 0.9000
1000 0.0000
e
100 0.5500
1000 0.0000
e
100 0.4500
1000 0.0000
e
100 0.3500
1000 0.0000
e
100 0.0000
1000 0.0000
e
100 0.0000
1000 0.0000
e
100 0.0500
1000 0.0000
e
100 0.3000
1000 0.0000
e
100 1.0000
1000 0.6500
e
100 1.0000
1000 1.0000
e
100 1.0000
1000 1.0000
e
100 0.9000
1000 0.8000
e
